/**
 * Replay scenarios of a run's own shapes: actions of each kind, retries, limits, maintain mode, continue-as-new, stops, timeouts, failures, rate limits, budgets.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, script, verdicts } from '../../integration/harness.js';
import { CHILD, FLAKY, JUDGE_SCHEMA, tool, type Scenario } from './support.js';

export const RUN_SCENARIOS: Scenario[] = [
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
];
