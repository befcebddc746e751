/**
 * Every run rule is tested on both sides (docs/architecture.md, "Run rules"): RULE_TESTS names,
 * for each rule, an integration test of a run with it and, while the rule is not retired
 * (workflows/run-rules.ts), one of a run without it; the committed histories that predate it
 * (their runs' inputs lack it) replay in `npm run test:replay`. A retired rule has no "without"
 * side left: its branch is gone, and so are the histories of the releases before it. A rule added
 * to CURRENT_RUN_RULES without an entry here fails this test.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CURRENT_RUN_RULES, retiredRunRules } from '../../workflows/run-rules.js';
import type { LoopRunOptions } from '../../workflows/run-options.js';
import { committedInputs, committedSets } from '../replay/histories.js';

/** A test by its file (under tests/) and its exact title. */
interface TestRef {
  file: string;
  title: string;
}

/** The rules a run's input can carry. */
type RuleName = keyof typeof CURRENT_RUN_RULES;

const RULE_TESTS: Record<RuleName, { with: TestRef; without?: TestRef }> = {
  terminalsInBursts: {
    with: {
      file: 'integration/bursts-after.test.ts',
      title: 'with terminalsInBursts the closing message after the last fix’s check runs in the fix’s activity',
    },
    without: {
      file: 'integration/bursts-after.test.ts',
      title: 'without terminalsInBursts (an older release) the closing message is a burst of its own',
    },
  },
  briefAfterActions: {
    with: {
      file: 'integration/bursts-after.test.ts',
      title: 'with briefAfterActions a check the run saw take over a second runs after each fix in the fix’s activity',
    },
    without: {
      file: 'integration/bursts-after.test.ts',
      title:
        'without briefAfterActions (an older release) a check of over a second after each fix is an activity of its own',
    },
  },
  burstsAfterActions: {
    with: {
      file: 'integration/bursts-after.test.ts',
      title: 'with burstsAfterActions the check after each fix runs in the fix’s activity',
    },
    without: {
      file: 'integration/bursts-after.test.ts',
      title: 'without burstsAfterActions (an older release) the check after each fix is a burst of its own',
    },
  },
  learnedChains: {
    with: {
      file: 'integration/learned-quick.test.ts',
      title: 'with learnedChains two checks the run saw quick run back to back in one local activity',
    },
    without: {
      file: 'integration/learned-quick.test.ts',
      title: 'without learnedChains (an older release) each check the run saw quick is a burst of its own',
    },
  },
  controlsAfterBursts: {
    with: {
      file: 'integration/quick-bursts.test.ts',
      title:
        'with controlsAfterBursts a steer that reaches a burst acts at its end: every action that ran is recorded, the steered state runs its own',
    },
    without: {
      file: 'integration/quick-bursts.test.ts',
      title:
        "without controlsAfterBursts (an older release) the steered state takes the burst's next result as its own",
    },
  },
  learnedQuick: {
    with: {
      file: 'integration/learned-quick.test.ts',
      title: 'with learnedQuick a check seen quick runs as a local activity; one seen slow runs as an activity again',
    },
    without: {
      file: 'integration/learned-quick.test.ts',
      title: 'without learnedQuick (an older release) every pass of the check is an activity',
    },
  },
  laneItems: {
    with: {
      file: 'integration/fanout-lanes.test.ts',
      title:
        "with laneItems a quick loop's items run in the parent's lanes: each once, max_workers at once, joined in order, no child run",
    },
    without: {
      file: 'integration/fanout-lanes.test.ts',
      title: 'without laneItems (an older release) the same items run as child workflows',
    },
  },
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
  },
  shareRateLimits: {
    with: {
      file: 'integration/fanout-rate-limit.test.ts',
      title: 'with shareRateLimits holds the running siblings: their next agent call waits for the same instant',
    },
  },
  sharedBudget: {
    with: {
      file: 'integration/fanout-budget.test.ts',
      title:
        'with sharedBudget its items spend from one ledger: a running item makes no further call, no further item starts, on_budget routes',
    },
  },
  quickBursts: {
    with: {
      file: 'integration/quick-bursts.test.ts',
      title: 'the loop timeout is exact inside a burst: the running action is killed at it, no later one starts',
    },
  },
  steering: {
    with: {
      file: 'integration/steer.test.ts',
      title: 'pause holds the run after its action; unpause lets it enter the routed state',
    },
  },
  actionCallKeys: {
    with: {
      file: 'integration/pinned-reschedule.test.ts',
      title: 'is delivered from the host journal, not run again, once the host is back (actionCallKeys)',
    },
  },
  closeAsOutcome: {
    with: {
      file: 'integration/close-as-outcome.test.ts',
      title: 'a failure terminal fails with a non-retryable LoopFailed carrying the result and the final snapshot',
    },
  },
  maskLoopEnv: {
    with: {
      file: 'integration/secrets.test.ts',
      title: 'masks ${env.*} values an action prints (stdout, stderr, captured, full log) in history and under .loops/',
    },
  },
  checkAnswers: {
    with: {
      file: 'integration/llm-schema-check.test.ts',
      title: 'asks again after an answer outside the enum and routes on the valid one',
    },
  },
  pauseOnRateLimit: {
    with: {
      file: 'integration/rate-limits.test.ts',
      title: 'pauses, then runs the same action again: not a step, a verdict or a capture',
    },
  },
  stdoutSignals: {
    with: {
      file: 'integration/stdout-signals.test.ts',
      title: 'FATAL_ERROR: ends the run as an error with its message (workflow Failed)',
    },
  },
  childCheckout: {
    with: {
      file: 'integration/project-scope.test.ts',
      title: "a sub-loop run carries its parent's checkout (childCheckout) and is the project's run by name",
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
  it('every rule of CURRENT_RUN_RULES has a test of a run with it, and one without unless it is retired', () => {
    expect(Object.keys(RULE_TESTS).sort()).toEqual(Object.keys(CURRENT_RUN_RULES).sort());
    const retired = new Set<string>(retiredRunRules());
    for (const [rule, { without }] of Object.entries(RULE_TESTS))
      expect(
        without === undefined,
        `${rule}: a "without" test ${retired.has(rule) ? 'of a retired rule' : 'missing'}`,
      ).toBe(retired.has(rule));
  });

  for (const [rule, { with: withRule, without }] of Object.entries(RULE_TESTS)) {
    it(`${rule}: the tests it names exist`, () => {
      expect(titlesIn(withRule.file), withRule.file).toContain(withRule.title);
      if (without) expect(titlesIn(without.file), without.file).toContain(without.title);
    });
  }

  it("for every rule not retired, a committed history predates it (its run's input lacks the rule), and is replayed", () => {
    const recorded = recordedOptions();
    expect(recorded.length).toBeGreaterThan(0);
    const retired = new Set<string>(retiredRunRules());
    for (const rule of Object.keys(RULE_TESTS) as RuleName[]) {
      if (retired.has(rule)) continue;
      expect(
        recorded.filter((r) => r.options[rule] === undefined).map((r) => r.where),
        rule,
      ).not.toEqual([]);
    }
    // Both sides of a rule are in the committed histories once a release has recorded it.
    expect(recorded.some((r) => r.options.localScopeRequest === true)).toBe(true);
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
