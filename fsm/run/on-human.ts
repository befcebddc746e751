/**
 * A person answered the human state the run waits in, or its deadline passed. The answer is
 * captured (`${captured.<capture or state>.answer}`, `.edit`, `.by`, `.at`) and routes as the
 * verdict it gives (fsm/human.ts); a state with `next:` goes there on any answer. The deadline is
 * the `timeout` verdict: `on_timeout`, else the `no` route, else the run ends with an error.
 */
import { HUMAN_TIMEOUT_VERDICT, humanAsk, replyAnswer, replyVerdict, type HumanReply } from '../human.js';
import { renderValue } from '../interpolate.js';
import { routeFor } from '../routing.js';
import type { CapturedValue, EvalResult } from '../types.js';
import { emit, finish, stateOf, type Draft } from './draft.js';
import { routeTo } from './steps.js';

/**
 * `approvalEdit` (the run rule): an approval answered yes or no captures `edit: ''`, so that
 * `${captured.<state>.edit}` resolves once the state has run however it was answered.
 */
export function onHumanAnswered(d: Draft, reply: HumanReply, by: string, approvalEdit = false): void {
  const { snap } = d;
  const state = stateOf(d);
  const since = snap.human?.since_ms ?? d.now;
  delete snap.human;
  snap.humanEnded = { state: snap.current, how: 'answered', by, at_ms: d.now };
  const verdict = replyVerdict(reply);
  const answer = replyAnswer(reply);
  const at = new Date(d.now).toISOString();
  emit(d, 'human_answer', { state: snap.current, verdict, by, latency_ms: Math.max(0, d.now - since) });
  const value: CapturedValue = {
    output: reply.kind === 'edit' ? reply.text : renderValue(answer),
    stderr: '',
    exit_code: 0,
    duration_ms: Math.max(0, d.now - since),
    answer,
    ...(reply.kind === 'edit'
      ? { edit: reply.text }
      : approvalEdit && humanAsk(state) === 'approval'
        ? { edit: '' }
        : {}),
    by,
    at,
  };
  snap.captured = { ...snap.captured, [state.capture ?? snap.current]: value };
  const details: Record<string, unknown> = { answer, by, at, ...(reply.kind === 'edit' ? { edit: reply.text } : {}) };
  route(d, { verdict, details }, routeFor(state, verdict) ?? state.next);
}

export function onHumanTimeout(d: Draft): void {
  const { snap } = d;
  const state = stateOf(d);
  const since = snap.human?.since_ms ?? d.now;
  const deadline = snap.human?.deadline_ms ?? d.now;
  delete snap.human;
  snap.humanEnded = { state: snap.current, how: 'timeout', at_ms: deadline };
  emit(d, 'human_timeout', { state: snap.current, waited_ms: Math.max(0, d.now - since) });
  const target = routeFor(state, HUMAN_TIMEOUT_VERDICT) ?? routeFor(state, 'no');
  route(d, { verdict: HUMAN_TIMEOUT_VERDICT, details: { timeout: state.timeout ?? null } }, target);
}

function route(d: Draft, result: EvalResult, target: string | undefined): void {
  const { snap } = d;
  snap.result = result;
  emit(d, 'evaluate', { state: snap.current, type: 'human', verdict: result.verdict, details: result.details });
  if (target === undefined) {
    const why =
      result.verdict === HUMAN_TIMEOUT_VERDICT
        ? `nobody answered state "${snap.current}" in time and it has no on_timeout or on_no route`
        : `no valid transition from state "${snap.current}" for the answer "${result.verdict}"`;
    return finish(d, 'error', `${why}: add on_${result.verdict}: <state>`);
  }
  routeTo(d, stateOf(d), target, result.verdict, null);
}
