/**
 * The stdout signals an action (an agent, or a shell wrapping one) gives the loop, as
 * little-loops' executor reads them:
 * - `CONTEXT_HANDOFF: <payload>` — the agent's context is spent; continue in a fresh session
 *   (what happens is the loop's `on_handoff`: fsm/run/on-signal.ts);
 * - `FATAL_ERROR: <message>` — end the run as an error with that message;
 * - `LOOP_STOP: [<message>]` — end the run gracefully once this state has routed.
 *
 * A marker counts anywhere in a line (not only at its start); its payload is the rest of that line,
 * trimmed. `CONTEXT_HANDOFF:` and `FATAL_ERROR:` need a payload, `LOOP_STOP:` does not. When the
 * output holds several, the handoff wins over the error, the error over the stop (the original's
 * order); of one kind, the first line holding it counts. Pure: the worker runs it on the action's
 * output, the unit tests run it on tables.
 */

type StdoutSignalKind = 'handoff' | 'fatal_error' | 'loop_stop';

/** A signal found in an action's output (ActionResult.stdout_signal). */
export interface StdoutSignal {
  kind: StdoutSignalKind;
  /** The continuation (handoff), the error message (fatal_error), or the stop's reason (possibly ''). */
  payload: string;
}

/** In precedence order. */
const MARKERS: ReadonlyArray<{ kind: StdoutSignalKind; marker: string; needsPayload: boolean }> = [
  { kind: 'handoff', marker: 'CONTEXT_HANDOFF:', needsPayload: true },
  { kind: 'fatal_error', marker: 'FATAL_ERROR:', needsPayload: true },
  { kind: 'loop_stop', marker: 'LOOP_STOP:', needsPayload: false },
];

/** A payload is kept to this many characters (it goes into the run's history and into a prompt). */
const MAX_SIGNAL_PAYLOAD_CHARS = 16 * 1024;

/** The signal `output` gives, if any (see the module comment for the rules). */
export function detectStdoutSignal(output: string): StdoutSignal | undefined {
  if (!output.includes('CONTEXT_HANDOFF:') && !output.includes('FATAL_ERROR:') && !output.includes('LOOP_STOP:'))
    return undefined;
  const lines = output.split(/\r?\n/);
  for (const { kind, marker, needsPayload } of MARKERS) {
    for (const line of lines) {
      const at = line.indexOf(marker);
      if (at < 0) continue;
      const payload = line.slice(at + marker.length).trim();
      if (needsPayload && payload === '') continue;
      return { kind, payload: payload.slice(0, MAX_SIGNAL_PAYLOAD_CHARS) };
    }
  }
  return undefined;
}
