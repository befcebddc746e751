/**
 * little-loops' `session_mode:` (a state's, else the loop's; `fresh` by default): a
 * `session_mode: continue` prompt state carries on the agent session of the run's previous prompt
 * action instead of starting a new one.
 *
 * - "The previous prompt action" is the last prompt action this run completed (whatever its own
 *   session_mode, whichever state ran it, a failed attempt included); a rate-limited call is no
 *   answer and does not count. Never one of a sub-loop (a child run keeps its own), never one
 *   before a handoff (fsm/run/on-signal.ts drops the session: the handoff starts a fresh one).
 * - Under the host CLI, when that action's envelope named its session (`session_id`), the state's
 *   call resumes it (`--resume <id>`: RunActionInput.resume_session).
 * - Otherwise (an API provider, which has no sessions, or a host CLI that gave no id) the prompt
 *   starts with a compact summary of that answer: its last {@link SUMMARY_CHARS} characters.
 * - Nothing to carry (no prompt action yet, or its answer was empty with no id): the call is fresh.
 *
 * Only the id and the summary are kept, in the run's snapshot, and only by loops that have a
 * `continue` state: a loop without one runs exactly as before. The summary is the answer as the
 * worker returned it, with the loop's `${env.*}` values already masked.
 */
import { actionKind } from '../action.js';
import type { LoopDefinition, StateConfig } from '../schema.js';
import type { ActionResult, PromptText, RunActionInput } from '../types.js';
import { chomp, type Draft } from './draft.js';
import type { AgentSession } from './snapshot.js';

/** How much of the previous answer a call that cannot resume its session is given. */
export const SUMMARY_CHARS = 2000;

/** The state's effective session mode. */
function sessionMode(def: LoopDefinition, state: StateConfig): 'fresh' | 'continue' {
  return (state.session_mode ?? def.session_mode) === 'continue' ? 'continue' : 'fresh';
}

/** Whether any prompt state of the loop continues a session (only such loops keep one). */
function continuesSessions(def: LoopDefinition): boolean {
  return Object.values(def.states).some((s) => actionKind(s) === 'prompt' && sessionMode(def, s) === 'continue');
}

/** After a prompt action's answer: its session is the one a later `continue` state carries on. */
export function recordSession(d: Draft, state: StateConfig, result: ActionResult): void {
  if (actionKind(state) !== 'prompt' || !continuesSessions(d.def)) return;
  const summary = chomp(result.output).slice(-SUMMARY_CHARS);
  if (result.session_id === undefined && summary === '') {
    delete d.snap.agentSession;
    return;
  }
  const session: AgentSession = { state: d.snap.current, summary };
  if (result.session_id !== undefined) session.id = result.session_id;
  d.snap.agentSession = session;
}

/** A prompt action's input for `state`: resuming, or told, the previous session when it continues one. */
export function withSession<T extends Pick<RunActionInput, 'prompt' | 'llm' | 'resume_session'>>(
  d: Draft,
  state: StateConfig,
  input: T,
): T {
  const session = d.snap.agentSession;
  if (session === undefined || input.prompt === undefined || sessionMode(d.def, state) !== 'continue') return input;
  if (session.id !== undefined && input.llm === undefined) return { ...input, resume_session: session.id };
  if (session.summary === '') return input;
  return { ...input, prompt: { parts: [summaryText(session), ...input.prompt.parts] } satisfies PromptText };
}

/** The summary as it opens the prompt. */
function summaryText(session: AgentSession): string {
  const cut = session.summary.length >= SUMMARY_CHARS ? ` (its last ${SUMMARY_CHARS} characters)` : '';
  return `Your previous step (state "${session.state}") answered${cut}:\n${session.summary}\n\nContinue from there.\n\n`;
}
