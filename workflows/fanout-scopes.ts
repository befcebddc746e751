/**
 * Scope locks of a fan-out's items (the `itemScopes` rule): items whose loop declares `scope:`
 * and that share the parent's checkout (no `isolation: worktree`) hold their scopes while they
 * run, so two items on the same files run one after the other, never at once, and never refuse
 * each other (they queue, first come first served).
 *
 * The lock domain is the fan-out itself, kept in the parent with the same pure queue the
 * checkout's lock workflow runs (fsm/run/scope-queue.ts `decide`): every claimant is one of the
 * parent's own lanes, so no other workflow needs asking, and the parent's own lock on the checkout
 * (held for the whole run) already keeps other runs out. Items without `scope:` and items in
 * worktrees (each alone in its own directory) claim nothing and start as before.
 */
import { condition } from '@temporalio/workflow';
import { decide, EMPTY_QUEUE, type Decision, type ScopeQueue } from '../fsm/run/scope-queue.js';
import { claimedScopes } from '../fsm/scopes.js';
import type { LoopDefinition } from '../fsm/schema.js';

export class FanoutScopes {
  private queue: ScopeQueue = EMPTY_QUEUE;
  private readonly granted = new Set<string>();

  constructor(private readonly root: string) {}

  /** The scopes an item of `definition` claims, or none (no `scope:`, or scopes outside the checkout). */
  claimOf(definition: LoopDefinition): string[] | undefined {
    if (definition.scope === undefined || definition.scope.length === 0) return undefined;
    const { scopes, problems } = claimedScopes(definition.scope, this.root);
    return problems.length || scopes.length === 0 ? undefined : scopes;
  }

  /**
   * Queue for `scopes` and wait until they are held, or `give_up()` says to stop waiting (then
   * false). `queued` is told when they are not free at once (another item holds or awaits them).
   */
  async acquire(runId: string, scopes: string[], giveUp: () => boolean, queued: () => void): Promise<boolean> {
    this.apply(decide(this.queue, { type: 'request', run: runId, scopes, wait: true, now: Date.now() }));
    if (!this.granted.has(runId)) queued();
    await condition(() => this.granted.has(runId) || giveUp());
    if (this.granted.has(runId)) return true;
    this.release(runId);
    return false;
  }

  /** The item ended (or left the queue): the next waiting item whose scopes are free starts. */
  release(runId: string): void {
    this.granted.delete(runId);
    this.apply(decide(this.queue, { type: 'release', run: runId, now: Date.now() }));
  }

  private apply(decision: Decision): void {
    this.queue = decision.queue;
    for (const { run, answer } of decision.answers) if (answer.kind === 'granted') this.granted.add(run);
  }
}
