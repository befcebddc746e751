/**
 * A rate-limit pause shared by a fan-out's items (the `shareRateLimits` rule): the items run on
 * one host and one provider account, so when one is told to wait until an instant, the others
 * would be told the same on their next call. The item that paused tells its parent (a signal);
 * the parent tells every other running item, which makes no agent call before that instant
 * (workflows/item-pauses.ts), and starts no further item before it.
 *
 * The latest instant wins; an instant already past changes nothing. Items keep their own
 * `llm.rate_limit` handling for the calls they do make.
 */
import { setHandler, sleep } from '@temporalio/workflow';
import type { FanoutChildren } from './fanout-children.js';
import { fanoutPauseSignal, itemRateLimitedSignal, type ItemPause } from './fanout-signals.js';

export class FanoutPauses {
  private latest: ItemPause | undefined;

  constructor(private readonly children: FanoutChildren) {
    setHandler(itemRateLimitedSignal, (pause) => {
      if (!this.children.isRunning(pause.run_id)) return;
      if (this.latest !== undefined && this.latest.until_ms >= pause.until_ms) return;
      this.latest = pause;
      this.children.signal(fanoutPauseSignal, pause, (id) => id !== pause.run_id);
    });
    // An item that started during a pause is told at once.
    children.started((runId) => {
      const latest = this.latest;
      if (latest !== undefined && latest.until_ms > Date.now())
        this.children.signal(fanoutPauseSignal, latest, (id) => id === runId);
    });
  }

  /** Before an item starts: wait out a pause a sibling is in (a durable timer). */
  async beforeStart(): Promise<void> {
    const until = this.latest?.until_ms;
    if (until !== undefined && until > Date.now()) await sleep(until - Date.now());
  }

  close(): void {
    setHandler(itemRateLimitedSignal, undefined);
  }
}
