/** What the client needs of portable checkouts (the client reaches activities/ through worker/). */
export { portableSource, type PortableSource } from '../activities/git-checkout.js';
export { GitCheckoutError } from '../activities/git.js';
export type { WorkerPlace } from '../activities/placement.js';
export { keptWorktree, type KeptWorktree } from '../activities/kept-worktree.js';
