/**
 * The rules every run started by this release follows, each an option older runs lack (their
 * histories replay with the behaviour they had): `run`, schedules and `upgrade` set them all.
 * Its own module, free of the workflow SDK, so the CLI can import it cheaply.
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
} as const satisfies RunRules;
