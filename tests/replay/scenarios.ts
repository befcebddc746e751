/**
 * The loop shapes whose recorded histories every release must keep replaying: one run of each,
 * recorded by `npm run record-histories` on a real dev server and committed under
 * tests/fixtures/histories/<version>/. Each scenario is a definition plus how to drive it (the
 * fake tools it scripts, the run options, and for stop/timeout shapes what to do once started),
 * in a file by concern under tests/replay/scenarios/.
 */
import { BURST_SCENARIOS } from './scenarios/bursts.js';
import { FANOUT_SCENARIOS } from './scenarios/fanout.js';
import { PEOPLE_SCENARIOS } from './scenarios/people.js';
import { RUN_SCENARIOS } from './scenarios/runs.js';
import { SCOPE_SCENARIOS } from './scenarios/scopes.js';
import type { Scenario } from './scenarios/support.js';

export type { Scenario } from './scenarios/support.js';

export const SCENARIOS: Scenario[] = [
  ...RUN_SCENARIOS,
  ...SCOPE_SCENARIOS,
  ...PEOPLE_SCENARIOS,
  ...BURST_SCENARIOS,
  ...FANOUT_SCENARIOS,
];
