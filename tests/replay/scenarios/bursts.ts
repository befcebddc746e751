/**
 * Replay scenarios of quick actions run back to back as local activities (bursts), their limits, stops and controls, and the names of action calls.
 */
import { join } from 'node:path';
import { waitFor } from '../../support/processes.js';
import { steerUpdate } from '../../../workflows/control-definitions.js';
import { script } from '../../integration/harness.js';
import { BY, FLAKY, lineCount, tool, type Scenario } from './support.js';

/** The host CLI is an agent that reports two fixes, one per call. */
const twoFixes: NonNullable<Scenario['prepare']> = (p) => {
  tool(p, 'agent');
  script(p.toolsDir, 'agent', [
    [0, 'fixed'],
    [0, 'fixed'],
  ]);
  return { LL_HOST_CLI: 'agent' };
};

export const BURST_SCENARIOS: Scenario[] = [
  {
    name: 'quick-bursts',
    covers:
      'quick states in bursts (quickBursts): 220 quick actions in bounded bursts with flush timers, captured values, a burst ending before a remote action and before a terminal with an action',
    localActivityMaxTimeoutS: 30,
    definition: {
      name: 'quick-bursts',
      initial: 'a',
      max_iterations: 120,
      default_timeout: 5,
      states: {
        a: { action: 'echo ${state.iteration}', capture: 'a', next: 'b' },
        b: { action: 'test ${captured.a.output} -lt 110', on_yes: 'a', on_no: 'slow' },
        slow: { action: 'echo remote', timeout: 60, next: 'fin' },
        fin: { action: 'echo bye ${captured.a.output}', terminal: true },
      },
    },
  },
  {
    name: 'quick-burst-timeout',
    covers: 'the loop timeout inside a burst: the burst kills its running action at the deadline',
    localActivityMaxTimeoutS: 30,
    definition: {
      name: 'quick-burst-timeout',
      initial: 's1',
      default_timeout: 5,
      timeout: 1,
      states: {
        s1: { action: 'sleep 0.3', next: 's2' },
        s2: { action: 'sleep 0.3', next: 's3' },
        s3: { action: 'sleep 0.3', next: 's4' },
        s4: { action: 'sleep 0.3', next: 's5' },
        s5: { action: 'sleep 0.3', next: 'done' },
        done: { terminal: true },
      },
    },
  },
  {
    name: 'quick-burst-stop',
    covers:
      'stopInBursts: a stop seen by a running burst (its action killed, the facts before it kept), let in with a 1 ms timer',
    localActivityMaxTimeoutS: 30,
    cancelAfterMs: 2500,
    definition: {
      name: 'quick-burst-stop',
      initial: 'a',
      default_timeout: 25,
      states: {
        a: { action: 'echo a', next: 'b' },
        b: { action: 'sleep 20.5151', next: 'done' },
        done: { terminal: true },
      },
    },
  },
  {
    name: 'learned-checks',
    covers:
      'learnedQuick: two checks with long timeouts run as activities first, then (seen quick) as bursts; one seen slow is an activity again',
    localActivityMaxTimeoutS: 30,
    definition: {
      name: 'learned-checks',
      initial: 'build',
      max_iterations: 10,
      states: {
        build: { action: 'echo built', timeout: 1800, next: 'check' },
        check: {
          action:
            'n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; if [ $n -eq 2 ]; then sleep 1.1; fi; [ $n -ge 5 ]',
          timeout: 1800,
          on_yes: 'done',
          on_no: 'build',
        },
        done: { terminal: true },
      },
    },
  },
  {
    name: 'checks-after-fix',
    covers:
      "burstsAfterActions: the quick check after each agent's fix runs in the fix's activity (its result carries the check's burst), the first check a burst of its own",
    localActivityMaxTimeoutS: 30,
    prepare: twoFixes,
    definition: {
      name: 'checks-after-fix',
      initial: 'check',
      max_iterations: 10,
      states: {
        check: {
          action: 'n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; [ $n -ge 3 ]',
          timeout: 20,
          on_yes: 'done',
          on_no: 'fix',
        },
        fix: { action: 'fix it', action_type: 'prompt', timeout: 1800, next: 'check' },
        done: { terminal: true },
      },
    },
  },
  {
    name: 'brief-checks-after-fix',
    covers:
      "briefAfterActions: a check of over a second after each agent's fix runs in the fix's activity once the run saw it (the first check an activity of its own)",
    localActivityMaxTimeoutS: 30,
    prepare: twoFixes,
    definition: {
      name: 'brief-checks-after-fix',
      initial: 'check',
      max_iterations: 10,
      states: {
        check: {
          action: 'n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; sleep 1.1; [ $n -ge 3 ]',
          timeout: 1800,
          on_yes: 'done',
          on_no: 'fix',
        },
        fix: { action: 'fix it', action_type: 'prompt', timeout: 1800, next: 'check' },
        done: { terminal: true },
      },
    },
  },
  {
    name: 'closing-in-burst',
    covers:
      "terminalsInBursts: the closing message (a failure terminal's quick action) after the last fix's check runs in the fix's activity, as the burst's last",
    localActivityMaxTimeoutS: 30,
    prepare: twoFixes,
    definition: {
      name: 'closing-in-burst',
      initial: 'check',
      max_iterations: 10,
      states: {
        check: { action: 'false', timeout: 20, on_yes: 'done', on_no: 'budget' },
        budget: {
          evaluate: { type: 'output_numeric', source: '${state.iteration}', operator: 'le', target: 2 },
          on_yes: 'fix',
          on_no: 'gave_up',
        },
        fix: { action: 'fix it', action_type: 'prompt', timeout: 1800, next: 'check' },
        gave_up: { action: 'echo gave up', timeout: 10, terminal: true, failure: true },
        done: { terminal: true },
      },
    },
  },
  {
    name: 'steer-in-burst',
    covers:
      "controlsAfterBursts: a steer that reaches a self-looping state while its burst runs acts at the burst's end (all its facts fed), then the steered state runs its own action",
    localActivityMaxTimeoutS: 30,
    definition: {
      name: 'steer-in-burst',
      initial: 'a',
      default_timeout: 10,
      max_iterations: 1000,
      context: { mode: 'slow' },
      states: {
        a: { action: 'sleep 0.1; echo a >> ran', next: 'a' },
        c: { action: 'echo "c ${context.mode}"', next: 'done' },
        done: { terminal: true },
      },
    },
    drive: async (handle, p) => {
      await waitFor('a to run three times', () => lineCount(join(p.cwd, 'ran')) >= 3, 60_000);
      await handle.executeUpdate(steerUpdate, { args: [{ ...BY, to: 'c', context: { mode: 'fast' } }] });
    },
  },
  {
    name: 'action-calls',
    covers:
      "actionCallKeys: every action call named by the run (RunActionInput.call_key), a pinned run's retried and re-entered states each a new call",
    pinned: true,
    definition: {
      name: 'action-calls',
      initial: 'fetch',
      states: {
        fetch: {
          action: FLAKY,
          capture: 'fetch',
          retry: { attempts: 3, backoff: 0.05 },
          on_yes: 'done',
          on_no: 'failed',
        },
        done: { action: 'echo ${captured.fetch.output}', terminal: true },
        failed: { terminal: true, failure: true },
      },
    },
  },
];
