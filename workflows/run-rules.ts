/**
 * The rules every run started by this release follows, each an option older runs lack (their
 * histories replay with the behaviour they had): `run`, schedules and `upgrade` set them all.
 * And the policy that retires them (docs/architecture.md, "Run rules"): each rule records the
 * release that introduced it; this release serves the runs of its own minor line and of the two
 * lines before it; a rule every supported release sets is retired (the workflow no longer reads
 * it: its "off" branch is gone), and a run of an older release is not served.
 * Its own module, free of the workflow SDK and of Node built-ins, so the CLI can import it cheaply.
 */
import type { RunRules } from './run-options.js';

export const CURRENT_RUN_RULES = {
  closeAsOutcome: true,
  maskLoopEnv: true,
  checkAnswers: true,
  pauseOnRateLimit: true,
  stdoutSignals: true,
  childCheckout: true,
  steering: true,
  quickBursts: true,
  actionCallKeys: true,
  sharedBudget: true,
  shareRateLimits: true,
  itemScopes: true,
  localScopeRequest: true,
  stopInBursts: true,
  approvalEdit: true,
  laneItems: true,
  learnedQuick: true,
  controlsAfterBursts: true,
  learnedChains: true,
  burstsAfterActions: true,
  briefAfterActions: true,
  terminalsInBursts: true,
} as const satisfies RunRules;

export type RunRuleName = keyof typeof CURRENT_RUN_RULES;

/** The release this code is (package.json's version until it is published as this one). */
export const THIS_RELEASE = '0.9.0';

/** Minor release lines before this release's whose runs it still serves (0.9.x serves 0.7.x and 0.8.x). */
const SUPPORTED_LINES_BEFORE = 2;

/** The release each rule was introduced in: the first whose runs set it (a minor release: x.y.0). */
export const RUN_RULE_SINCE: Readonly<Record<RunRuleName, string>> = {
  closeAsOutcome: '0.4.0',
  maskLoopEnv: '0.4.0',
  checkAnswers: '0.5.0',
  pauseOnRateLimit: '0.5.0',
  stdoutSignals: '0.6.0',
  childCheckout: '0.6.0',
  steering: '0.6.0',
  quickBursts: '0.6.0',
  actionCallKeys: '0.6.0',
  sharedBudget: '0.7.0',
  shareRateLimits: '0.7.0',
  itemScopes: '0.7.0',
  localScopeRequest: '0.8.0',
  stopInBursts: '0.9.0',
  approvalEdit: '0.9.0',
  laneItems: '0.9.0',
  learnedQuick: '0.9.0',
  controlsAfterBursts: '0.9.0',
  learnedChains: '0.9.0',
  burstsAfterActions: '0.9.0',
  briefAfterActions: '0.9.0',
  terminalsInBursts: '0.9.0',
};

/** `[major, minor, patch]` of a version such as `0.8.1` (a pre-release or build suffix is ignored); undefined if it is none. */
function versionParts(version: string): [number, number, number] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** Negative, zero or positive as `a` is older than, the same release as, or newer than `b`. */
export function compareVersions(a: string, b: string): number {
  const pa = versionParts(a) ?? [0, 0, 0];
  const pb = versionParts(b) ?? [0, 0, 0];
  return pa[0] - pb[0] || pa[1] - pb[1] || pa[2] - pb[2];
}

/** The oldest release whose runs `release` serves: the first of the line SUPPORTED_LINES_BEFORE minor lines back. */
export function oldestSupportedRelease(release: string = THIS_RELEASE): string {
  const [major, minor] = versionParts(release) ?? [0, 0, 0];
  return `${major}.${Math.max(0, minor - SUPPORTED_LINES_BEFORE)}.0`;
}

/** Whether `release` serves the runs started by `version` (a run's memo `version`). */
export function isSupportedRelease(version: string, release: string = THIS_RELEASE): boolean {
  return versionParts(version) !== undefined && compareVersions(version, oldestSupportedRelease(release)) >= 0;
}

/** The rules every release `release` serves sets: retired, their "off" branch gone from the workflow. */
export function retiredRunRules(release: string = THIS_RELEASE): RunRuleName[] {
  const oldest = oldestSupportedRelease(release);
  return (Object.keys(RUN_RULE_SINCE) as RunRuleName[]).filter(
    (rule) => compareVersions(RUN_RULE_SINCE[rule], oldest) <= 0,
  );
}

/** The retired rules a run's options lack (empty: this release can serve it). */
export function missingRetiredRules(options: RunRules, release: string = THIS_RELEASE): RunRuleName[] {
  return retiredRunRules(release).filter((rule) => options[rule] !== true);
}
