/**
 * Replay scenarios of where a run acts: its scope lock (by activity or local activity) and a pinned pool run.
 */
import { type Scenario } from './support.js';

export const SCOPE_SCENARIOS: Scenario[] = [
  {
    name: 'scope-lock',
    covers: 'a run holding a scope lock: signal-with-start of the lock workflow, the grant, the release at the end',
    scopeLock: true,
    definition: {
      name: 'scope-lock',
      initial: 'work',
      states: {
        work: { action: 'echo locked', next: 'done' },
        done: { terminal: true },
      },
    },
  },
  {
    name: 'pinned',
    covers:
      "a pinned pool run: every activity on the checkout's queue (actionQueue) with a schedule-to-start notice, no local activities",
    pinned: true,
    definition: {
      name: 'pinned',
      initial: 'work',
      states: {
        work: { action: 'echo pinned', capture: 'where', next: 'done' },
        done: { action: 'echo ${captured.where.output}', terminal: true },
      },
    },
  },
  {
    name: 'scope-lock-quick',
    covers:
      'localScopeRequest: a run asks its scope lock with a local activity in its first workflow task (a marker, no activity), waits for the answer, then runs its quick actions',
    scopeLock: true,
    localActivityMaxTimeoutS: 30,
    definition: {
      name: 'scope-lock-quick',
      initial: 'first',
      default_timeout: 10,
      states: {
        first: { action: 'echo first', next: 'second' },
        second: { action: 'echo second', next: 'done' },
        done: { terminal: true },
      },
    },
  },
];
