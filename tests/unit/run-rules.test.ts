/**
 * Every run rule is tested on both sides (docs/architecture.md, "Changing workflow or core
 * behaviour"): RULE_TESTS names, for each rule, an integration test of a run with it and one of a
 * run without it; the committed histories that predate it (their runs' inputs lack it) replay in
 * `npm run test:replay`. A rule added to CURRENT_RUN_RULES without an entry here fails this test.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CURRENT_RUN_RULES } from '../../workflows/run-rules.js';
import type { LoopRunOptions } from '../../workflows/run-options.js';
import { committedInputs, committedSets } from '../replay/histories.js';

/** A test by its file (under tests/) and its exact title. */
interface TestRef {
  file: string;
  title: string;
}

/** The rules a run's input can carry: every current rule, and the schedules' own. */
type RuleName = keyof typeof CURRENT_RUN_RULES | 'failOnNonTerminal';

const RULE_TESTS: Record<RuleName, { with: TestRef; without: TestRef }> = {
  approvalEdit: {
    with: {
      file: 'integration/approval-edit.test.ts',
      title: 'with approvalEdit a plain yes captures edit as the empty string: ${captured.review.edit} resolves',
    },
    without: {
      file: 'integration/approval-edit.test.ts',
      title:
        'without approvalEdit (an older release) a plain yes captures no edit: ${captured.review.edit} ends the run',
    },
  },
  stopInBursts: {
    with: {
      file: 'integration/quick-bursts.test.ts',
      title:
        'with stopInBursts a stop reaches a running burst at once: its action is killed, the run ends stopped in its state',
    },
    without: {
      file: 'integration/quick-bursts.test.ts',
      title: 'without stopInBursts (an older release) a stop reaches a running burst with its task, at the heartbeat',
    },
  },
  localScopeRequest: {
    with: {
      file: 'integration/scope-request-local.test.ts',
      title: 'with localScopeRequest a run asks its lock in its first workflow task: granted, denied, released',
    },
    without: {
      file: 'integration/scope-request-local.test.ts',
      title: 'without localScopeRequest (an older release) a run asks its lock with an activity',
    },
  },
  itemScopes: {
    with: {
      file: 'integration/fanout-scopes.test.ts',
      title: 'with itemScopes items on the same scope run one after the other; others run at once',
    },
    without: {
      file: 'integration/fanout-scopes.test.ts',
      title: 'without itemScopes (an older release) items on the same scope run at once',
    },
  },
  shareRateLimits: {
    with: {
      file: 'integration/fanout-rate-limit.test.ts',
      title: 'with shareRateLimits holds the running siblings: their next agent call waits for the same instant',
    },
    without: {
      file: 'integration/fanout-rate-limit.test.ts',
      title: 'without shareRateLimits (an older release) the siblings call at once',
    },
  },
  sharedBudget: {
    with: {
      file: 'integration/fanout-budget.test.ts',
      title:
        'with sharedBudget its items spend from one ledger: a running item makes no further call, no further item starts, on_budget routes',
    },
    without: {
      file: 'integration/fanout-budget.test.ts',
      title: 'without sharedBudget (an older release) every item may spend what was left when the fan-out began',
    },
  },
  quickBursts: {
    with: {
      file: 'integration/quick-bursts.test.ts',
      title: 'the loop timeout is exact inside a burst: the running action is killed at it, no later one starts',
    },
    without: {
      file: 'integration/quick-bursts.test.ts',
      title: 'a run without quickBursts runs one local activity per action; with it, one marker per burst',
    },
  },
  steering: {
    with: {
      file: 'integration/steer.test.ts',
      title: 'pause holds the run after its action; unpause lets it enter the routed state',
    },
    without: {
      file: 'integration/steer.test.ts',
      title: 'a run without the steering rule refuses pause and steer, and runs as before',
    },
  },
  actionCallKeys: {
    with: {
      file: 'integration/pinned-reschedule.test.ts',
      title: 'is delivered from the host journal, not run again, once the host is back (actionCallKeys)',
    },
    without: {
      file: 'integration/pinned-reschedule.test.ts',
      title: 'in a run without actionCallKeys (an older release) runs again once the host is back, as it did',
    },
  },
  closeAsOutcome: {
    with: {
      file: 'integration/close-as-outcome.test.ts',
      title: 'a failure terminal fails with a non-retryable LoopFailed carrying the result and the final snapshot',
    },
    without: {
      file: 'integration/close-as-outcome.test.ts',
      title: 'a run without closeAsOutcome (started by 0.3.0) completes at a failure terminal and at max_iterations',
    },
  },
  maskLoopEnv: {
    with: {
      file: 'integration/secrets.test.ts',
      title: 'masks ${env.*} values an action prints (stdout, stderr, captured, full log) in history and under .loops/',
    },
    without: {
      file: 'integration/secrets.test.ts',
      title: 'a run without maskLoopEnv (started by 0.3.0) masks only what an action itself references, as it did',
    },
  },
  checkAnswers: {
    with: {
      file: 'integration/llm-schema-check.test.ts',
      title: 'asks again after an answer outside the enum and routes on the valid one',
    },
    without: {
      file: 'integration/llm-schema-check.test.ts',
      title: 'a run without checkAnswers (started by 0.4.0) routes the answer as before',
    },
  },
  pauseOnRateLimit: {
    with: {
      file: 'integration/rate-limits.test.ts',
      title: 'pauses, then runs the same action again: not a step, a verdict or a capture',
    },
    without: {
      file: 'integration/rate-limits.test.ts',
      title: 'in a run of an older release (no pauseOnRateLimit) is judged as it was',
    },
  },
  stdoutSignals: {
    with: {
      file: 'integration/stdout-signals.test.ts',
      title: 'FATAL_ERROR: ends the run as an error with its message (workflow Failed)',
    },
    without: {
      file: 'integration/stdout-signals.test.ts',
      title: 'in a run without the stdoutSignals rule, the lines are plain output',
    },
  },
  childCheckout: {
    // One test runs a parent with the rule and one without, and compares their children.
    with: {
      file: 'integration/project-scope.test.ts',
      title:
        "a sub-loop run carries its parent's checkout (childCheckout); without the rule it is still found by its memo",
    },
    without: {
      file: 'integration/project-scope.test.ts',
      title:
        "a sub-loop run carries its parent's checkout (childCheckout); without the rule it is still found by its memo",
    },
  },
  failOnNonTerminal: {
    with: {
      file: 'integration/close-as-outcome.test.ts',
      title:
        "failOnNonTerminal (a schedule's --pause-on-failure) fails a run at max_iterations that would complete without it",
    },
    without: {
      file: 'integration/close-as-outcome.test.ts',
      title:
        "failOnNonTerminal (a schedule's --pause-on-failure) fails a run at max_iterations that would complete without it",
    },
  },
};

const TESTS_DIR = join(import.meta.dirname, '..');

/** The titles of a test file's `it(…)` calls, as written (quotes unescaped). */
function titlesIn(file: string): string[] {
  const text = readFileSync(join(TESTS_DIR, file), 'utf8');
  const found: string[] = [];
  for (const m of text.matchAll(/\bit\(\s*(['"`])((?:\\.|(?!\1).)*)\1/g)) found.push(m[2]!.replace(/\\(.)/g, '$1'));
  return found;
}

/** The options every committed execution was started with. */
function recordedOptions(): Array<{ where: string; options: Partial<LoopRunOptions> }> {
  return committedInputs().map(({ where, input }) => ({ where, options: input.options as Partial<LoopRunOptions> }));
}

describe('run rules are tested on both sides', () => {
  it('every rule of CURRENT_RUN_RULES (and failOnNonTerminal) has a test of a run with it and one without', () => {
    expect(Object.keys(RULE_TESTS).sort()).toEqual([...Object.keys(CURRENT_RUN_RULES), 'failOnNonTerminal'].sort());
  });

  for (const [rule, { with: withRule, without }] of Object.entries(RULE_TESTS)) {
    it(`${rule}: the tests it names exist`, () => {
      expect(titlesIn(withRule.file), withRule.file).toContain(withRule.title);
      expect(titlesIn(without.file), without.file).toContain(without.title);
    });
  }

  it("for every rule, a committed history predates it (its run's input lacks the rule), and is replayed", () => {
    const recorded = recordedOptions();
    expect(recorded.length).toBeGreaterThan(0);
    for (const rule of Object.keys(RULE_TESTS) as RuleName[]) {
      if (rule === 'failOnNonTerminal') continue; // set by schedules only: most runs lack it
      expect(
        recorded.filter((r) => r.options[rule] === undefined).map((r) => r.where),
        rule,
      ).not.toEqual([]);
    }
    // Both sides of a rule are in the committed histories once a release has recorded it.
    expect(recorded.some((r) => r.options.closeAsOutcome === true)).toBe(true);
  });

  it('no committed history holds a patch marker (the removed core-semantics gate never recorded one)', () => {
    let markers = 0;
    for (const { dir } of committedSets()) {
      for (const file of readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'manifest.json')) {
        const { events } = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
          events: Array<{ markerRecordedEventAttributes?: { markerName?: string } }>;
        };
        const names = events.flatMap((e) =>
          e.markerRecordedEventAttributes ? [e.markerRecordedEventAttributes.markerName] : [],
        );
        markers += names.length;
        // Temporal's patched() records `core_patch` markers; local activities record their own.
        expect(
          names.filter((n) => n === 'core_patch'),
          file,
        ).toEqual([]);
      }
    }
    expect(markers).toBeGreaterThan(0);
  });
});
