/**
 * How run rules retire (workflows/run-rules.ts, docs/architecture.md "Run rules"): each rule names
 * the release that introduced it; a release serves the runs of its own minor line and of the two
 * before it; a rule every served release sets is retired. Checked against the table, against the
 * committed histories (each set's inputs carry exactly the rules introduced by then), and on the
 * inputs of releases no longer served, copied from their committed histories before those left.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoopRunOptions, RunRules } from '../../workflows/run-options.js';
import {
  compareVersions,
  CURRENT_RUN_RULES,
  isSupportedRelease,
  missingRetiredRules,
  oldestSupportedRelease,
  retiredRunRules,
  RUN_RULE_SINCE,
  type RunRuleName,
  THIS_RELEASE,
} from '../../workflows/run-rules.js';
import { committedInputs, committedSets } from '../replay/histories.js';

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }
).version;

/** `shell.json`'s run options as 0.6.0 and 0.1.0 recorded them (tests/fixtures/histories/<v>/ until 0.9.0). */
const OPTIONS_OF_0_6_0 = {
  cwd: '/tmp/ll-loop-it-1BVGJ5',
  searchAttributes: true,
  localActivityMaxTimeoutS: 0,
  closeAsOutcome: true,
  maskLoopEnv: true,
  checkAnswers: true,
  pauseOnRateLimit: true,
  stdoutSignals: true,
  childCheckout: true,
  steering: true,
  quickBursts: true,
  actionCallKeys: true,
};
const OPTIONS_OF_0_1_0: LoopRunOptions = {
  cwd: '/tmp/ll-loop-it-lE109B',
  searchAttributes: true,
  localActivityMaxTimeoutS: 0,
};

describe('the retirement table', () => {
  it('names a release for every rule: a minor release (x.y.0), no later than this one', () => {
    expect(Object.keys(RUN_RULE_SINCE).sort()).toEqual(Object.keys(CURRENT_RUN_RULES).sort());
    for (const [rule, since] of Object.entries(RUN_RULE_SINCE)) {
      expect(since, rule).toMatch(/^\d+\.\d+\.0$/);
      expect(compareVersions(since, THIS_RELEASE), rule).toBeLessThanOrEqual(0);
    }
  });

  it('this release is the package version or the one after it', () => {
    expect(compareVersions(THIS_RELEASE, PACKAGE_VERSION)).toBeGreaterThanOrEqual(0);
  });

  it('0.9.0 serves the runs of 0.7.0 and later; 0.10.0 those of 0.8.0 and later', () => {
    expect(oldestSupportedRelease('0.9.0')).toBe('0.7.0');
    expect(oldestSupportedRelease('0.10.0')).toBe('0.8.0');
    expect(oldestSupportedRelease('1.1.0')).toBe('1.0.0');
    for (const v of ['0.7.0', '0.8.0', '0.8.1', '0.9.0', '0.9.0-rc.1'])
      expect(isSupportedRelease(v, '0.9.0'), v).toBe(true);
    for (const v of ['0.1.0', '0.6.0', '0.6.9', 'dev', '']) expect(isSupportedRelease(v, '0.9.0'), v).toBe(false);
  });

  it('a rule is retired once every served release sets it: at 0.9.0 those of 0.7.0 and before', () => {
    const at = (release: string): RunRuleName[] => retiredRunRules(release).sort();
    expect(at('0.9.0')).toEqual(
      [
        'closeAsOutcome',
        'maskLoopEnv',
        'checkAnswers',
        'pauseOnRateLimit',
        'stdoutSignals',
        'childCheckout',
        'steering',
        'quickBursts',
        'actionCallKeys',
        'sharedBudget',
        'shareRateLimits',
        'itemScopes',
      ].sort(),
    );
    // localScopeRequest (0.8.0) while 0.7.0 is served; stopInBursts (0.9.0) until 0.9.x is the oldest.
    expect(at('0.9.0')).not.toContain('localScopeRequest');
    expect(at('0.10.0')).toContain('localScopeRequest');
    expect(at('0.10.0')).not.toContain('stopInBursts');
    expect(at('0.11.0')).toEqual(Object.keys(CURRENT_RUN_RULES).sort());
    expect(at('0.5.0')).toEqual([]);
  });
});

describe('runs of releases no longer served', () => {
  it('an input of 0.6.0 lacks the rules of 0.7.0, retired: it needs a release this one does not serve', () => {
    expect(missingRetiredRules(OPTIONS_OF_0_6_0)).toEqual(['sharedBudget', 'shareRateLimits', 'itemScopes']);
  });

  it('an input of 0.1.0 lacks every retired rule', () => {
    expect(missingRetiredRules(OPTIONS_OF_0_1_0)).toEqual(retiredRunRules());
  });

  it('a new run lacks none', () => {
    expect(missingRetiredRules(CURRENT_RUN_RULES)).toEqual([]);
  });
});

describe('the committed histories', () => {
  it('are those of the served releases only', () => {
    const versions = committedSets().map((s) => s.manifest.version);
    expect(versions.length).toBeGreaterThan(0);
    for (const v of versions) expect(isSupportedRelease(v), v).toBe(true);
    expect(versions).toContain(oldestSupportedRelease());
  });

  it('carry, in every input, exactly the rules introduced by the release that recorded it', () => {
    const inputs = committedInputs();
    expect(inputs.length).toBeGreaterThan(0);
    for (const { where, input } of inputs) {
      const version = where.split('/')[0]!;
      const options = input.options as RunRules;
      for (const [rule, since] of Object.entries(RUN_RULE_SINCE) as Array<[RunRuleName, string]>)
        expect(options[rule] === true, `${where}: ${rule} (since ${since})`).toBe(compareVersions(since, version) <= 0);
      expect(missingRetiredRules(options), where).toEqual([]);
    }
  });
});
