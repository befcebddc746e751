/**
 * Where a run's actions run (issue "host-affine pools"). Three cases, all chosen by the run's
 * input, so runs without `actionQueue`/`portable` (every run before pools) behave exactly as
 * before and their histories replay unchanged:
 *
 * - local (no `actionQueue`, no `portable`): actions on the workflow's own queue, the checkout's.
 * - pinned (`actionQueue`): workflow tasks may go to any pool worker, actions only to the queue of
 *   the worker that holds the checkout. An action nobody takes within {@link WAIT_NOTICE_S} s (`hostNoticeS`) means
 *   that host is gone: the run says so (Web UI details, status query) and keeps waiting for it —
 *   it never runs an action on another host.
 * - portable (`portable`): the first pool worker to answer `claimCheckout` prepares its own
 *   checkout and its host queue takes every later action; if that host stops answering (an
 *   action not taken within the notice, or a running one that stops heartbeating), the checkout
 *   is claimed again, by whichever worker answers first, and the run's events say so.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  setCurrentDetails,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import type { PlacementActivities } from './activity-types.js';
import type { LoopWorkflowInput } from './definitions.js';
import type { PortableCheckout } from './run-options.js';

/** How long an action may wait for its host before the run says the host is gone (default). */
const WAIT_NOTICE_S = 60;

/** Where actions go now: the queue (undefined: the workflow's own) and the directory. */
export interface Place {
  queue?: string;
  cwd: string;
  /** The host holding a portable run's checkout, and that checkout's directory. */
  host?: string;
  dir?: string;
}

/** Whether the error is Temporal giving up on an activity because no worker took it, or its worker went silent. */
function hostLost(err: unknown): 'not_taken' | 'silent' | undefined {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof TimeoutFailure)) return undefined;
  if (err.cause.timeoutType === 'SCHEDULE_TO_START') return 'not_taken';
  if (err.cause.timeoutType === 'HEARTBEAT') return 'silent';
  return undefined;
}

export interface HostChange {
  from: string | undefined;
  to: string;
  dir: string;
  why: string;
}

export class Placement {
  private place: Place;
  /** How many checkouts this execution has claimed: a new claim is a new place (workflows/action-calls.ts). */
  claims = 0;
  /** What the run waits for, while it does (the status query shows it). */
  waitingFor: string | undefined;

  constructor(
    private readonly input: LoopWorkflowInput,
    private readonly onHostChange: (change: HostChange) => void,
  ) {
    const o = input.options;
    this.place = {
      cwd: o.cwd,
      ...(o.actionQueue ? { queue: o.actionQueue } : {}),
      ...(o.placedOn ? { host: o.placedOn.host, dir: o.placedOn.dir } : {}),
    };
  }

  /** Whether actions leave the workflow's queue (then never as local activities). */
  get remote(): boolean {
    return this.place.queue !== undefined || this.input.options.portable !== undefined;
  }

  get current(): Place {
    return this.place;
  }

  /** The options a continue-as-new or a sub-loop carries: the same place, claimed once. */
  carried(): LoopWorkflowInput['options'] {
    const o = this.input.options;
    return {
      ...o,
      cwd: this.place.cwd,
      ...(this.place.queue ? { actionQueue: this.place.queue } : {}),
      ...(this.place.host && this.place.dir ? { placedOn: { host: this.place.host, dir: this.place.dir } } : {}),
    };
  }

  private get notice(): string {
    return `${this.input.options.hostNoticeS ?? WAIT_NOTICE_S}s`;
  }

  /**
   * Activity options for the current place: its queue, and the notice when a host may be gone. A
   * portable run's action is not retried by Temporal on the host that went silent: the run claims
   * a checkout again instead (run()).
   */
  activityOptions(): { taskQueue?: string; scheduleToStartTimeout?: string; retry?: { maximumAttempts: number } } {
    if (!this.remote) return {};
    return {
      ...(this.place.queue ? { taskQueue: this.place.queue } : {}),
      scheduleToStartTimeout: this.notice,
      ...(this.input.options.portable ? { retry: { maximumAttempts: 1 } } : {}),
    };
  }

  /**
   * Run `call` (an activity at the current place) until it is taken by the place's host. A lost
   * host makes a pinned run wait (saying so) and a portable run claim a checkout elsewhere.
   */
  async run<T>(call: (place: Place) => Promise<T>): Promise<T> {
    await this.ensureClaimed();
    for (;;) {
      try {
        const result = await call(this.place);
        this.waitingFor = undefined;
        return result;
      } catch (err) {
        const lost = hostLost(err);
        if (!lost || !this.remote) throw err;
        const portable = this.input.options.portable;
        if (portable) {
          await this.claim(
            portable,
            lost === 'silent' ? 'its host stopped answering mid-action' : `its host took no action for ${this.notice}`,
          );
          continue;
        }
        this.waitingFor = `the worker of the checkout's host (task queue ${this.place.queue}): nothing took the action for ${this.notice}; the run waits for that host and never runs the action elsewhere`;
        setCurrentDetails(`**waiting for its host** · ${this.waitingFor}`);
      }
    }
  }

  /** A portable run's checkout, claimed before anything needs its directory. */
  async ensureClaimed(): Promise<void> {
    const portable = this.input.options.portable;
    if (portable && !this.place.host) await this.claim(portable, 'first action');
  }

  /** Ask the pool for a checkout (any worker that answers first prepares one on its host). */
  private async claim(portable: PortableCheckout, why: string): Promise<void> {
    const { claimCheckout } = proxyActivities<PlacementActivities>({
      taskQueue: portable.claimQueue,
      startToCloseTimeout: '20m',
      scheduleToStartTimeout: this.notice,
      heartbeatTimeout: '60s',
      retry: { maximumAttempts: 3, nonRetryableErrorTypes: ['GitCheckoutError'] },
      summary: 'claim a checkout',
    });
    for (;;) {
      try {
        const got = await claimCheckout({ ...portable, path: portable.path ?? '', runId: workflowInfo().workflowId });
        const from = this.place.host;
        this.place = { queue: got.queue, cwd: got.cwd, host: got.host, dir: got.dir };
        this.claims += 1;
        this.waitingFor = undefined;
        if (from !== got.host) this.onHostChange({ from, to: got.host, dir: got.dir, why });
        return;
      } catch (err) {
        if (hostLost(err) !== 'not_taken') throw err;
        this.waitingFor = `a worker of pool queue ${portable.claimQueue}: none has answered for ${this.notice}; start one with ll-loop worker --pool NAME`;
        setCurrentDetails(`**waiting for a pool worker** · ${this.waitingFor}`);
      }
    }
  }

  /** At the end of a portable run: its checkout is removed unless it holds work. */
  async release(): Promise<{ kept: boolean; why?: string } | undefined> {
    const portable = this.input.options.portable;
    if (!portable || !this.place.dir || !this.place.queue) return undefined;
    const { releaseCheckout } = proxyActivities<PlacementActivities>({
      taskQueue: this.place.queue,
      startToCloseTimeout: '5m',
      scheduleToStartTimeout: this.notice,
      retry: { maximumAttempts: 2 },
      summary: 'release the checkout',
    });
    try {
      return await releaseCheckout({ ...portable, dir: this.place.dir });
    } catch (err) {
      // A host gone at the very end keeps its checkout: nothing is lost, the run still ends.
      if (err instanceof ActivityFailure || err instanceof ApplicationFailure) return undefined;
      throw err;
    }
  }
}
