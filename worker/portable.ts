/** What the client needs of portable checkouts (the client reaches activities/ through worker/). */
export { portableSource } from '../activities/git-checkout.js';
export { GitCheckoutError } from '../activities/git.js';
export { keptWorktree, type KeptWorktree } from '../activities/kept-worktree.js';
