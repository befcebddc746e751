/**
 * The body of a page's action request (`POST /api/run/<id>/<action>`), checked before anything is
 * sent to the run: a malformed one is a 400 naming what is wrong, never a crash or a half request.
 */
import type { HumanReply } from '../../fsm/human.js';
import type { ActRequest } from './wire.js';

/** The most a request body may hold (a JSON answer included). */
export const BODY_LIMIT = 64 * 1024;

/** The actions a body goes with. */
export const BODY_ACTIONS = ['pause', 'unpause', 'steer', 'answer', 'rerun'] as const;

type Parsed = { request: ActRequest } | { problem: string };

function strings(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

function reply(v: unknown): HumanReply | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const r = v as Record<string, unknown>;
  switch (r.kind) {
    case 'yes':
    case 'no':
      return { kind: r.kind };
    case 'edit':
    case 'text':
      return typeof r.text === 'string' ? { kind: r.kind, text: r.text } : undefined;
    case 'choice':
      return typeof r.option === 'string' ? { kind: 'choice', option: r.option } : undefined;
    case 'json':
      return 'value' in r ? { kind: 'json', value: r.value } : undefined;
    default:
      return undefined;
  }
}

/** The request `action` with `body` (JSON text, may be empty for pause/unpause). */
export function parseActRequest(action: (typeof BODY_ACTIONS)[number], body: string): Parsed {
  if (action === 'pause' || action === 'unpause') return { request: { action } };
  let v: Record<string, unknown>;
  try {
    const parsed = JSON.parse(body) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return { problem: 'the body is not a JSON object' };
    v = parsed as Record<string, unknown>;
  } catch {
    return { problem: 'the body is not JSON' };
  }
  if (v.context !== undefined && !strings(v.context)) return { problem: 'context must be a list of K=V strings' };
  const context = v.context as string[] | undefined;
  if (action === 'steer') {
    if (typeof v.to !== 'string' || v.to === '') return { problem: 'steer needs "to": the state to go to' };
    if (v.note !== undefined && typeof v.note !== 'string') return { problem: 'note must be text' };
    return {
      request: {
        action,
        to: v.to,
        ...(typeof v.note === 'string' && v.note !== '' ? { note: v.note } : {}),
        ...(context?.length ? { context } : {}),
      },
    };
  }
  if (action === 'rerun') {
    if (typeof v.from !== 'string' || v.from === '') return { problem: 'rerun needs "from": STATE or STATE#N' };
    return { request: { action, from: v.from, ...(context?.length ? { context } : {}) } };
  }
  const r = reply(v.reply);
  if (!r) return { problem: 'answer needs "reply": {kind: yes|no|edit|choice|text|json, …}' };
  return { request: { action, reply: r } };
}
