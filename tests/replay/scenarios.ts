/**
 * The loop shapes whose recorded histories every release must keep replaying: one run of each,
 * recorded by `npm run record-histories` on a real dev server and committed under
 * tests/fixtures/histories/<version>/. Each scenario is a definition plus how to drive it (the
 * fake tools it scripts, the run options, and for stop/timeout shapes what to do once started).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { FIXTURES, script, verdicts } from '../integration/harness.js';
import { waitFor } from '../support/processes.js';
import { pauseUpdate, steerUpdate } from '../../workflows/control-definitions.js';
import { answerHumanUpdate, resumeHandoffUpdate, statusQuery } from '../../workflows/definitions.js';

interface ScenarioProject {
  cwd: string;
  toolsDir: string;
}

export interface Scenario {
  /** File-name-safe; the histories are saved as `<name>.json` (continued runs `<name>.<n>.json`). */
  name: string;
  /** What the history exercises, for the manifest. */
  covers: string;
  definition: Record<string, unknown>;
  /** Scripts fake tools / writes sub-loop files; returns extra worker environment. */
  prepare?: (p: ScenarioProject) => Record<string, string>;
  localActivityMaxTimeoutS?: number;
  historyEventLimit?: number;
  failOnNonTerminal?: boolean;
  /** Stop the run this long after it starts (the `cancel` shape). */
  cancelAfterMs?: number;
  /** The run asks the recording worker's queue's lock workflow for the whole checkout. */
  scopeLock?: boolean;
  /** Actions go to the recording worker's queue as a pinned pool run's do (`actionQueue`). */
  pinned?: boolean;
  /** Context keys given on the command line (`--context`): data, not code. */
  dataContext?: string[];
  /**
   * What a person does to the run once it started (answers, pause, steer), through the run's
   * Updates as the CLI sends them; the recorder then waits for the run's end.
   */
  drive?: (handle: WorkflowHandle, p: ScenarioProject) => Promise<void>;
}

const CHILD = `
name: child
description: counts to two
initial: work
states:
  work:
    action: "echo child-\${state.iteration}"
    capture: child_out
    evaluate: { type: output_contains, pattern: "child-2" }
    on_yes: done
    on_no: work
  done: { terminal: true }
`;

/** A fake tool named `name` in the project's bin/ (fake-claude is `claude` already). */
function tool(p: ScenarioProject, name: string): void {
  symlinkSync(join(FIXTURES, 'fake-tool'), join(p.cwd, 'bin', name));
}

const JUDGE_SCHEMA = {
  type: 'object',
  properties: {
    verdict: { type: 'string', enum: ['done', 'again'] },
    confidence: { type: 'number' },
    reason: { type: 'string' },
  },
  required: ['verdict'],
};

/** Waits until the run's status says `ready`. */
/** How many lines an action appended to `file` (none before it wrote one). */
const lineCount = (file: string): number =>
  existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').length : 0;

async function until(handle: WorkflowHandle, what: string, ready: (s: Awaited<ReturnType<typeof status>>) => boolean) {
  await waitFor(what, async () => ready(await status(handle)), 60_000);
}
const status = (handle: WorkflowHandle) => handle.query(statusQuery);
const BY = { by: 'recorder@replay' };

const PARALLEL_ITEM = `
name: item
description: one item of a fan-out
initial: run
parameters:
  name: { type: string, required: true }
states:
  run:
    action: "echo item-\${context.name}; case \${context.name} in bad*) exit 1;; esac"
    on_yes: done
    on_no: failed
  done: { terminal: true }
  failed: { terminal: true, failure: true }
`;

const FLAKY =
  'n=$(cat attempts 2>/dev/null || echo 0); n=$((n + 1)); echo $n > attempts; echo "attempt $n"; [ "$n" -ge 3 ]';

export const SCENARIOS: Scenario[] = [
  {
    name: 'shell',
    covers: 'remote shell activities, capture, output_numeric, backoff timer, terminal action',
    definition: {
      name: 'shell',
      initial: 'count',
      backoff: 0.05,
      context: { limit: 3 },
      states: {
        count: {
          action: 'echo ${state.iteration}',
          capture: 'n',
          evaluate: { type: 'output_numeric', operator: 'ge', target: '${context.limit}' },
          on_yes: 'done',
          on_no: 'count',
        },
        done: { action: "echo 'reached ${captured.n.output}'", terminal: true },
      },
    },
  },
  {
    name: 'shell-local',
    covers: 'quick shell actions as local activities with flush timers, exit codes, on_error, state timeout',
    localActivityMaxTimeoutS: 30,
    definition: {
      name: 'shell-local',
      initial: 'a',
      max_iterations: 60,
      default_timeout: 5,
      states: {
        a: { action: 'echo ${state.iteration}', capture: 'a', on_yes: 'b' },
        b: { action: 'test ${state.iteration} -lt 55', on_yes: 'a', on_no: 'hang' },
        hang: { action: 'sleep 30.4242', timeout: 1, on_error: 'missing', on_yes: 'done' },
        missing: { action: 'no-such-command-ll', on_yes: 'done', on_no: 'done', on_error: 'done' },
        done: { terminal: true },
      },
    },
  },
  {
    name: 'prompt',
    covers: 'prompt actions through the fake host CLI, judged by llm_structured (the prompt default)',
    prepare: (p) => {
      script(p.toolsDir, 'mypy', [
        [1, 'a.py:1: error: x'],
        [0, 'Success'],
      ]);
      return { FAKE_CLAUDE_VERDICTS: verdicts(p.cwd, [{ verdict: 'yes', confidence: 0.9, reason: 'fixed' }]) };
    },
    definition: {
      name: 'prompt',
      initial: 'check',
      max_iterations: 5,
      states: {
        check: { action: 'mypy src/', on_yes: 'done', on_no: 'fix' },
        fix: { action: 'fix the type errors', action_type: 'prompt', on_yes: 'check', on_no: 'check' },
        done: { terminal: true },
      },
    },
  },
  {
    name: 'llm-structured',
    covers: 'llm_structured evaluation of a shell action, low confidence, custom verdicts',
    prepare: (p) => ({
      FAKE_CLAUDE_VERDICTS: verdicts(p.cwd, [
        { verdict: 'no', confidence: 0.95, reason: 'not yet' },
        { verdict: 'yes', confidence: 0.3, reason: 'unsure' },
        { verdict: 'yes', confidence: 0.9, reason: 'looks right' },
      ]),
    }),
    definition: {
      name: 'llm-structured',
      initial: 'judge',
      max_iterations: 6,
      states: {
        judge: {
          action: 'echo output ${state.iteration}',
          evaluate: { type: 'llm_structured', prompt: 'Is the output good?', min_confidence: 0.5 },
          route: { yes: 'done', no: 'judge', yes_uncertain: 'judge' },
        },
        done: { terminal: true },
      },
    },
  },
  {
    name: 'subloop',
    covers: 'a loop: state as a child workflow (loadSubloop, child history), passthrough, routing on its outcome',
    prepare: (p) => {
      mkdirSync(join(p.cwd, '.loops'), { recursive: true });
      writeFileSync(join(p.cwd, '.loops', 'child.yaml'), CHILD);
      return {};
    },
    definition: {
      name: 'subloop',
      initial: 'run_child',
      states: {
        run_child: { loop: 'child', context_passthrough: true, on_yes: 'report', on_no: 'failed' },
        report: { action: 'echo "${captured.child_out.output}"', next: 'done' },
        done: { terminal: true },
        failed: { terminal: true, failure: true },
      },
    },
  },
  {
    name: 'retry',
    covers: 'per-state retry with durable backoff timers, then an exhausted retry routed on_no',
    definition: {
      name: 'retry',
      initial: 'fetch',
      states: {
        fetch: {
          action: FLAKY,
          capture: 'fetch',
          retry: { attempts: 3, backoff: 0.05 },
          on_yes: 'again',
          on_no: 'failed',
        },
        again: { action: 'false', retry: { attempts: 2, backoff: 0 }, on_yes: 'done', on_no: 'done' },
        done: { terminal: true },
        failed: { terminal: true, failure: true },
      },
    },
  },
  {
    name: 'maintain',
    covers: 'maintain mode: restarts with maintain_delay timers, on_maintain, ended by max_steps',
    definition: {
      name: 'maintain',
      initial: 'check',
      maintain: true,
      maintain_delay: 0.05,
      max_steps: 9,
      states: {
        check: { action: 'echo ${state.iteration}', capture: 'check', next: 'idle' },
        idle: { terminal: true, on_maintain: 'check' },
      },
    },
  },
  {
    name: 'continue-as-new',
    covers: 'a run continued as new several times, carrying its snapshot and pending effect',
    historyEventLimit: 60,
    definition: {
      name: 'continue-as-new',
      initial: 'a',
      max_iterations: 25,
      states: {
        a: { action: 'echo ${state.iteration}', capture: 'last', on_yes: 'b' },
        b: { action: 'test ${state.iteration} -lt 25', on_yes: 'a', on_no: 'done' },
        done: { terminal: true },
      },
    },
  },
  {
    name: 'cancel',
    covers: 'a run stopped from outside during a long action (cancellation recorded as the outcome)',
    cancelAfterMs: 1500,
    definition: {
      name: 'cancel',
      initial: 'first',
      states: {
        first: { action: 'echo started', next: 'wait' },
        wait: { action: 'sleep 30.5151', on_yes: 'done' },
        done: { terminal: true },
      },
    },
  },
  {
    name: 'timeout',
    covers: 'the loop-level timeout timer firing during an action',
    definition: {
      name: 'timeout',
      initial: 'work',
      timeout: 2,
      states: {
        work: { action: 'sleep 30.6161', on_yes: 'done' },
        done: { terminal: true },
      },
    },
  },
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
    name: 'failure-terminal',
    covers:
      'closeAsOutcome: a failure terminal fails the workflow (LoopFailed); a failing sub-loop fails its child workflow and the parent routes on its result',
    prepare: (p) => {
      mkdirSync(join(p.cwd, '.loops'), { recursive: true });
      writeFileSync(
        join(p.cwd, '.loops', 'broken-child.yaml'),
        'name: broken-child\ninitial: a\nstates:\n  a:\n    action: "echo child"\n    next: bad\n  bad:\n    terminal: true\n    failure: true\n',
      );
      return {};
    },
    definition: {
      name: 'failure-terminal',
      initial: 'sub',
      states: {
        sub: { loop: 'broken-child', on_success: 'done', on_failure: 'check' },
        check: { action: 'echo checked', next: 'broken' },
        done: { terminal: true },
        broken: { terminal: true, failure: true },
      },
    },
  },
  {
    name: 'context-data',
    covers:
      '--context values as data (dataContext) and masked ${env.*} values (maskLoopEnv) in shell and prompt actions',
    dataContext: ['note'],
    prepare: () => ({ LL_RECORD_SECRET: 'recorded-secret-value' }),
    definition: {
      name: 'context-data',
      initial: 'say',
      context: { note: 'a"; echo injected; "b' },
      states: {
        say: {
          action: 'echo "note: ${context.note}"; echo "token ${env.LL_RECORD_SECRET}"',
          capture: 'said',
          next: 'ask',
        },
        ask: { action: 'summarise: ${captured.said.output}', action_type: 'prompt', next: 'done' },
        done: { terminal: true },
      },
    },
  },
  {
    name: 'fail-on-non-terminal',
    covers: 'failOnNonTerminal (schedules): a run ending at max_iterations fails the workflow with LoopFailed',
    failOnNonTerminal: true,
    definition: {
      name: 'fail-on-non-terminal',
      initial: 'try',
      max_iterations: 2,
      states: {
        try: { action: 'false', on_yes: 'done', on_no: 'try' },
        done: { terminal: true },
      },
    },
  },
  {
    name: 'rate-limit',
    covers:
      'pauseOnRateLimit: a prompt action and an LLM evaluation answered with a rate limit pause on a timer (rate_limit sleep until an instant) and are made again',
    prepare: (p) => {
      tool(p, 'agent');
      const judged = JSON.stringify({
        type: 'result',
        subtype: 'success',
        is_error: false,
        structured_output: { verdict: 'yes', confidence: 0.9, reason: 'fine' },
      });
      const limited = JSON.stringify({
        type: 'result',
        subtype: 'success',
        is_error: true,
        result: 'API Error: Rate limit reached',
      });
      script(p.toolsDir, 'agent', [
        [1, 'API Error: 429 {"type":"error","error":{"type":"rate_limit_error"}} retry-after: 1'],
        [0, 'fixed'],
        [0, limited],
        [0, judged],
      ]);
      return { LL_HOST_CLI: 'agent' };
    },
    definition: {
      name: 'rate-limit',
      initial: 'fix',
      llm: { rate_limit: { backoff: 1 } },
      states: {
        fix: { action: 'fix it', action_type: 'prompt', capture: 'fixed', next: 'check' },
        check: {
          action: 'echo checked',
          evaluate: { type: 'llm_structured', prompt: 'Good?' },
          on_yes: 'done',
          on_no: 'done',
        },
        done: { terminal: true },
      },
    },
  },
  {
    name: 'schema-reask',
    covers:
      'checkAnswers: an answer outside the schema is asked again (llm_reask); output_schema parses a shell output into captured json',
    prepare: (p) => ({
      FAKE_CLAUDE_VERDICTS: verdicts(p.cwd, [
        { verdict: 'maybe', confidence: 0.9, reason: 'unsure' },
        { verdict: 'done', confidence: 0.9, reason: 'fine' },
      ]),
    }),
    definition: {
      name: 'schema-reask',
      initial: 'plan',
      states: {
        plan: {
          action: 'echo \'{"files":["a.ts"]}\'',
          output_schema: { type: 'object', required: ['files'] },
          capture: 'plan',
          next: 'judge',
        },
        judge: {
          action: 'echo ${captured.plan.json.files.0}',
          evaluate: { type: 'llm_structured', schema: JUDGE_SCHEMA },
          route: { done: 'done', again: 'judge', error: 'done' },
        },
        done: { terminal: true },
      },
    },
  },
  {
    name: 'diff-mcp',
    covers: 'diff_stall (the diffStat activity, memory in the snapshot) and an mcp_tool state judged by mcp_result',
    prepare: (p) => {
      execFileSync('git', ['init', '-q'], { cwd: p.cwd });
      writeFileSync(join(p.cwd, 'a.txt'), 'one\n');
      execFileSync('git', ['-c', 'user.email=r@example.com', '-c', 'user.name=r', 'add', 'a.txt'], { cwd: p.cwd });
      execFileSync('git', ['-c', 'user.email=r@example.com', '-c', 'user.name=r', 'commit', '-qm', 'one'], {
        cwd: p.cwd,
      });
      writeFileSync(
        join(p.cwd, '.mcp.json'),
        JSON.stringify({ mcpServers: { tiny: { command: process.execPath, args: [join(FIXTURES, 'mcp-server')] } } }),
      );
      return {};
    },
    definition: {
      name: 'diff-mcp',
      initial: 'call',
      max_iterations: 4,
      states: {
        call: {
          action: 'tiny/echo',
          action_type: 'mcp_tool',
          params: { text: 'hi' },
          route: { success: 'edit', _: 'done' },
        },
        // The first pass sees a.txt changed; the second sees the same diff: a stall, so `no`.
        edit: {
          action: 'echo "changed" > a.txt',
          evaluate: { type: 'diff_stall', max_stall: 1 },
          on_yes: 'edit',
          on_no: 'done',
          on_error: 'done',
        },
        done: { terminal: true },
      },
    },
  },
  {
    name: 'budget',
    covers:
      'budgets: spend from the host CLI envelope (prompt usage) reaches max_cost_usd, budget_spent, on_budget routes',
    prepare: (p) => {
      tool(p, 'agent');
      const envelope = (text: string) =>
        JSON.stringify({
          type: 'result',
          subtype: 'success',
          is_error: false,
          result: text,
          total_cost_usd: 0.3,
          usage: { input_tokens: 100, output_tokens: 20 },
        });
      script(p.toolsDir, 'agent', [
        [0, envelope('first')],
        [0, envelope('second')],
      ]);
      return { LL_HOST_CLI: 'agent' };
    },
    definition: {
      name: 'budget',
      initial: 'work',
      budget: { max_cost_usd: 0.5 },
      states: {
        work: { action: 'do some work', action_type: 'prompt', next: 'work', on_budget: 'stop' },
        stop: { action: 'echo out of budget', terminal: true },
      },
    },
  },
  {
    name: 'human',
    covers:
      'human states: an approval answered with an edit through the answerHuman Update (captured answer, by), a choice, and a text question that times out on its durable deadline (on_timeout)',
    definition: {
      name: 'human',
      initial: 'plan',
      states: {
        plan: { action: 'echo the plan', capture: 'plan', next: 'review' },
        review: {
          action_type: 'human',
          prompt: 'Apply ${captured.plan.output}?',
          timeout: 3600,
          on_yes: 'pick',
          on_no: 'done',
          on_edit: 'pick',
        },
        pick: {
          action_type: 'human',
          ask: 'choice',
          prompt: 'Which way?',
          options: ['ship', 'drop'],
          timeout: 3600,
          on_ship: 'wait',
          on_drop: 'done',
        },
        wait: { action_type: 'human', ask: 'text', prompt: 'Anything else?', timeout: 1, on_timeout: 'report' },
        report: { action: 'echo "${captured.review.edit} by ${captured.review.by}"', next: 'done' },
        done: { terminal: true },
      },
    },
    drive: async (handle) => {
      await until(handle, 'review to wait', (s) => s.human?.state === 'review');
      await handle.executeUpdate(answerHumanUpdate, {
        args: [{ ...BY, state: 'review', reply: { kind: 'edit', text: 'apply it carefully' } }],
      });
      await until(handle, 'pick to wait', (s) => s.human?.state === 'pick');
      await handle.executeUpdate(answerHumanUpdate, {
        args: [{ ...BY, state: 'pick', reply: { kind: 'choice', option: 'ship' } }],
      });
    },
  },
  {
    name: 'steering',
    covers:
      'steering: pause (the run holds after its action), then steer (which releases it) to another state with a context edit and a note',
    definition: {
      name: 'steering',
      initial: 'plan',
      context: { target: 'all' },
      states: {
        plan: { action: 'while [ ! -f go ]; do sleep 0.05; done; echo plan', next: 'build' },
        build: { action: 'echo "build ${context.target}"', next: 'done' },
        review: { action: 'echo "review ${context.target}"', next: 'done' },
        done: { terminal: true },
      },
    },
    drive: async (handle, p) => {
      await until(handle, 'plan to run', (s) => s.state === 'plan');
      await handle.executeUpdate(pauseUpdate, { args: [BY] });
      writeFileSync(join(p.cwd, 'go'), '');
      await until(handle, 'the run to hold', (s) => s.phase === 'paused');
      await handle.executeUpdate(steerUpdate, {
        args: [{ ...BY, to: 'review', context: { target: 'docs' }, note: 'docs first' }],
      });
    },
  },
  {
    name: 'parallel',
    covers:
      'a parallel state: items as child workflows (max_workers 2, one failing) joined on_partial, then static branches joined on_yes',
    prepare: (p) => {
      mkdirSync(join(p.cwd, '.loops'), { recursive: true });
      writeFileSync(join(p.cwd, '.loops', 'item.yaml'), PARALLEL_ITEM);
      writeFileSync(join(p.cwd, '.loops', 'child.yaml'), CHILD);
      return {};
    },
    definition: {
      name: 'parallel',
      initial: 'list',
      states: {
        list: { action: 'echo \'["a","b","bad-c"]\'', capture: 'todo', next: 'fan' },
        fan: {
          parallel: { items: '${captured.todo.output}', loop: 'item', with: { name: '${item}' }, max_workers: 2 },
          on_yes: 'branches',
          on_partial: 'branches',
          on_no: 'failed',
        },
        branches: { parallel: { branches: ['child', 'child'] }, on_yes: 'report', on_no: 'failed' },
        report: { action: 'echo "${captured.fan.succeeded}/${captured.fan.count}"', next: 'done' },
        done: { terminal: true },
        failed: { terminal: true, failure: true },
      },
    },
  },
  {
    name: 'handoff',
    covers:
      'stdoutSignals: a CONTEXT_HANDOFF line pauses the run (on_handoff: pause) until resumeHandoff; LOOP_STOP ends it',
    definition: {
      name: 'handoff',
      initial: 'work',
      states: {
        work: {
          action:
            'if [ -f resumed ]; then echo "LOOP_STOP: all done"; else touch resumed; echo "CONTEXT_HANDOFF: pick up at b"; fi',
          next: 'work',
        },
        done: { terminal: true },
      },
    },
    drive: async (handle) => {
      await until(handle, 'the handoff', (s) => s.phase === 'handoff');
      await handle.executeUpdate(resumeHandoffUpdate);
    },
  },
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
    name: 'fanout-lanes',
    covers:
      "laneItems: a quick loop's items run in the parent's lanes (max_workers 3, one failing), bursts side by side taken in schedule order, a flush between",
    localActivityMaxTimeoutS: 30,
    prepare: (p) => {
      mkdirSync(join(p.cwd, '.loops'), { recursive: true });
      const quick = PARALLEL_ITEM.replace('    on_yes: done', '    timeout: 10\n    capture: out\n    on_yes: done');
      writeFileSync(
        join(p.cwd, '.loops', 'item.yaml'),
        quick.replace('echo item-', 'sleep 0.$((RANDOM % 4)); echo item-'),
      );
      return {};
    },
    definition: {
      name: 'fanout-lanes',
      initial: 'fan',
      states: {
        fan: {
          parallel: {
            items: ['a', 'b', 'bad-c', 'd', 'e', 'f', 'g', 'h'],
            loop: 'item',
            with: { name: '${item}' },
            max_workers: 3,
          },
          on_yes: 'done',
          on_partial: 'done',
          on_no: 'failed',
        },
        done: { action: 'echo "${captured.fan.succeeded}/${captured.fan.count}"', terminal: true },
        failed: { terminal: true, failure: true },
      },
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
  {
    name: 'fanout-budget',
    covers:
      'sharedBudget: a fan-out under a budget keeps one ledger: items report their spend by signal (fanoutItemSpent), the parent tells the running ones it is spent (fanoutBudgetSpent), the rest are skipped, on_budget routes',
    prepare: (p) => {
      tool(p, 'agent');
      const envelope = JSON.stringify({
        type: 'result',
        subtype: 'success',
        is_error: false,
        result: 'worked',
        total_cost_usd: 0.3,
        usage: { input_tokens: 100, output_tokens: 20 },
      });
      script(
        p.toolsDir,
        'agent',
        Array.from({ length: 6 }, () => [0, envelope] as [number, string]),
      );
      mkdirSync(join(p.cwd, '.loops'), { recursive: true });
      writeFileSync(
        join(p.cwd, '.loops', 'spend.yaml'),
        'name: spend\ninitial: work\nmax_iterations: 5\nstates:\n  work:\n    action: do some work\n    action_type: prompt\n    next: work\n    on_budget: done\n  done: { terminal: true }\n',
      );
      return { LL_HOST_CLI: 'agent' };
    },
    definition: {
      name: 'fanout-budget',
      initial: 'fan',
      budget: { max_cost_usd: 0.5 },
      states: {
        fan: {
          parallel: { items: ['a', 'b', 'c'], loop: 'spend', max_workers: 2 },
          on_yes: 'done',
          on_no: 'done',
          on_budget: 'stop',
        },
        stop: { action: 'echo out of budget', terminal: true },
        done: { terminal: true },
      },
    },
  },
  {
    name: 'fanout-rate-limit',
    covers:
      'shareRateLimits: a fan-out item paused for a rate limit tells its parent (fanoutItemRateLimited), which tells the running sibling (fanoutPause); the sibling waits on a timer before its agent call',
    prepare: (p) => {
      tool(p, 'agent');
      script(p.toolsDir, 'agent', [
        [1, 'API Error: 429 {"type":"error","error":{"type":"rate_limit_error"}} retry-after: 2'],
        [0, 'fixed'],
        [0, 'fixed'],
      ]);
      const fix = (name: string) =>
        `  fix:\n    action: fix ${name}\n    action_type: prompt\n    evaluate: { type: exit_code }\n    on_yes: done\n    on_no: done\n  done: { terminal: true }\n`;
      mkdirSync(join(p.cwd, '.loops'), { recursive: true });
      writeFileSync(join(p.cwd, '.loops', 'first.yaml'), `name: first\ninitial: fix\nstates:\n${fix('first')}`);
      // The sibling starts its call later, so the pause is under way by then.
      writeFileSync(
        join(p.cwd, '.loops', 'second.yaml'),
        `name: second\ninitial: wait\nstates:\n  wait:\n    action: sleep 1\n    next: fix\n${fix('second')}`,
      );
      return { LL_HOST_CLI: 'agent' };
    },
    definition: {
      name: 'fanout-rate-limit',
      initial: 'fan',
      states: {
        fan: { parallel: { branches: ['first', 'second'], max_workers: 2 }, on_yes: 'done', on_no: 'done' },
        done: { terminal: true },
      },
    },
  },
  {
    name: 'fanout-scopes',
    covers:
      "itemScopes: two items whose loop declares scope: [src] on the parent's checkout run one after the other (the second starts when the first ends), an item on docs beside them",
    prepare: (p) => {
      mkdirSync(join(p.cwd, '.loops'), { recursive: true });
      const loop = (name: string, scope: string) =>
        `name: ${name}\ninitial: work\nscope: [${scope}]\nstates:\n  work:\n    action: sleep 0.5\n    next: done\n  done: { terminal: true }\n`;
      writeFileSync(join(p.cwd, '.loops', 'edit-src.yaml'), loop('edit-src', 'src'));
      writeFileSync(join(p.cwd, '.loops', 'edit-docs.yaml'), loop('edit-docs', 'docs'));
      return {};
    },
    definition: {
      name: 'fanout-scopes',
      initial: 'fan',
      states: {
        fan: {
          parallel: { branches: ['edit-src', 'edit-src', 'edit-docs'], max_workers: 3 },
          on_yes: 'done',
          on_no: 'done',
        },
        done: { terminal: true },
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
