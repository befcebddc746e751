/**
 * Replay scenarios of parallel states: items in lanes, a shared budget, rate limits and scopes of fan-outs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { script } from '../../integration/harness.js';
import { CHILD, PARALLEL_ITEM, tool, type Scenario } from './support.js';

export const FANOUT_SCENARIOS: Scenario[] = [
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
];
