/**
 * The loop workflow's updates for a person steering a run (fsm/run/control.ts says what each
 * means): `ll-loop pause`, `unpause` and `steer`. Each is validated before it is accepted, so a
 * refused one leaves nothing in the run's history; each answers where the run is.
 */
import { defineUpdate } from '@temporalio/workflow';

/** Who asks: `user@host` of the person at the command line. */
export interface ControlBy {
  by: string;
}

export interface SteerArgs extends ControlBy {
  /** The state the run goes to next, instead of the routed one. */
  to: string;
  note?: string;
  /** Context values to set (keys the loop's `context` declares). */
  context?: Record<string, string>;
}

/** Where the run is once the update was accepted. */
export interface ControlAnswer {
  state: string;
  phase: string;
  /** The run holds (phase `paused`): it has finished its state's work and waits. */
  holding: boolean;
  /**
   * The update reached the run while quick actions ran back to back (a burst, with the
   * `controlsAfterBursts` rule): it acts once they end, after at most a second more of them
   * (workflows/burst.ts), in the state the last one routes from; `state` is where they began.
   */
  after_quick?: true;
}

export const pauseUpdate = defineUpdate<ControlAnswer, [ControlBy]>('pause');
export const unpauseUpdate = defineUpdate<ControlAnswer, [ControlBy]>('unpause');
export const steerUpdate = defineUpdate<ControlAnswer, [SteerArgs]>('steer');
