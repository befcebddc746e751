/**
 * The history replayer, loaded on its first use. A follower on the worker's host is fed by the
 * run's events file (events-tail.ts) and usually never replays: it then never loads the worker
 * SDK, its native runtime and the workflow bundle, which cost a short `ll-loop run` more than
 * the run itself (hundreds of ms of CPU before the first line and after the last).
 */
import type { History } from '@temporalio/common/lib/proto-utils.js';
import type { HistoryReplayer, ReplayedExecution } from '../../worker/replay-events.js';

export class LazyReplayer {
  private replayer: Promise<HistoryReplayer> | undefined;

  /** Whether a replay was ever asked for (the SDK was loaded). */
  get loaded(): boolean {
    return this.replayer !== undefined;
  }

  replay(history: History, workflowId: string): Promise<ReplayedExecution> {
    this.replayer ??= import('../../worker/replay-events.js').then(({ HistoryReplayer }) => new HistoryReplayer());
    return this.replayer.then((r) => r.replay(history, workflowId));
  }

  async close(): Promise<void> {
    if (this.replayer) await (await this.replayer).close();
  }
}
