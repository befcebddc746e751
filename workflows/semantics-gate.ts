/**
 * Which core semantics a run starts with, recorded in its history so that every replay — by this
 * release or a later one — starts it the same way. A new run follows CORE_SEMANTICS; each version
 * above 1 is a Temporal patch marker (`ll-core-semantics-<n>`) the run records when it starts, so
 * a history recorded before version n was introduced replays with the rules it had. Runs continued
 * as new carry their semantics in their snapshot and ask nothing.
 */
import { patched } from '@temporalio/workflow';
import { CORE_SEMANTICS } from '../fsm/semantics.js';

export function startingSemantics(): number {
  let semantics = 1;
  for (let version = 2; version <= CORE_SEMANTICS; version += 1) if (patched(`ll-core-semantics-${version}`)) semantics = version;
  return semantics;
}
