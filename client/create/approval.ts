/**
 * `ll-loop create --approve DURATION` (and the wizard's question): a person approves the loop's
 * result before it ends. Every route into a success terminal goes to an `approve` human state
 * instead (an approval with a durable deadline): yes → that terminal; no → `not_approved`, a
 * failure terminal; nobody answering by the deadline counts as no (the `no` route).
 */
import { UsageError } from '../../errors/errors.js';

export interface ApprovalAnswer {
  /** The deadline of the question, in seconds. */
  timeoutS: number;
}

type States = Record<string, Record<string, unknown>>;

/** A state name not yet taken: `base`, else `base_2`, `base_3`, … */
function freeState(states: States, base: string): string {
  if (!(base in states)) return base;
  for (let i = 2; ; i += 1) if (!(`${base}_${i}` in states)) return `${base}_${i}`;
}

/** Point every route of `state` that goes to `from` at `to` (on_*, next, route: maps). */
function reroute(state: Record<string, unknown>, from: string, to: string): void {
  for (const [key, value] of Object.entries(state)) {
    if ((key === 'next' || key.startsWith('on_')) && value === from) state[key] = to;
    if (key === 'route' && value && typeof value === 'object')
      for (const [verdict, target] of Object.entries(value as Record<string, unknown>))
        if (target === from) (value as Record<string, unknown>)[verdict] = to;
  }
}

/** Add the approval to a compiled FSM (in place). A loop with no success terminal has no end to approve. */
export function addApproval(fsm: Record<string, unknown>, approval: ApprovalAnswer): void {
  const states = fsm.states as States;
  // A maintained loop's terminal starts the next round (on_maintain): the loop never ends there.
  const ends = Object.keys(states).filter(
    (n) => states[n]!.terminal === true && states[n]!.failure !== true && states[n]!.on_maintain === undefined,
  );
  if (ends.length === 0)
    throw new UsageError(
      'this loop never ends by itself (it runs until stopped): there is no result for a person to approve',
      'leave out --approve, or pick a kind that ends (fix, metric, sequence)',
    );
  const refused = freeState(states, 'not_approved');
  for (const end of ends) {
    const approve = freeState(states, ends.length === 1 ? 'approve' : `approve_${end}`);
    for (const name of Object.keys(states)) reroute(states[name]!, end, approve);
    states[approve] = {
      action_type: 'human',
      ask: 'approval',
      prompt: `Loop \${loop.name} reached "${end}". Accept the result?`,
      timeout: approval.timeoutS,
      on_yes: end,
      on_no: refused,
    };
  }
  states[refused] = { terminal: true, failure: true };
}
