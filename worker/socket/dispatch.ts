/**
 * The worker's side of its socket: one connection, one request line, checked against the schema
 * of its kind (schemas.ts) and handled by its entry (requests.ts); or refused, typed, and said in the worker's log. A line
 * that is not JSON, an unknown kind or a request that does not match its schema is refused with
 * its issues (`bad_request`), never cast; so is a request of another build, server or checkout,
 * one for a directory outside the checkout, and every request while the worker drains.
 */
import type { Socket } from 'node:net';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { z } from 'zod';
import { codeId } from '../../host/build-info.js';
import { CliError } from '../../errors/errors.js';
import { errorReply } from './start-error-reply.js';
import { REQUESTS } from './requests.js';
import type { RequestKind } from '../../runs/transport/schemas.js';
import type { ServeContext } from './serve-context.js';
import type { Refused, RequestIssue } from '../../runs/transport/replies.js';

/** A request larger than this is not one a command sends (Temporal refuses far less). */
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

export interface Dispatching extends ServeContext {
  /** False once the worker drains: every request is refused. */
  open: () => boolean;
  /** Counts the requests being answered (a stream is not waited for, only noted). */
  track: { begin(): void; end(): void };
}

/**
 * Any entry of the table, as the dispatcher handles it: each entry's handler, log lines and
 * schemas were checked against one another in requests.ts; here an entry and the request its own
 * schema parsed go together, which TypeScript cannot follow across the union of entries.
 */
type AnyEntry = (typeof REQUESTS)[RequestKind];
type AnyUnary = Extract<AnyEntry, { stream?: undefined }>;

/** Serve one connection. */
export function dispatch(socket: Socket, d: Dispatching): void {
  let buffer = '';
  let answered = false;
  let tracked = false;
  const answer = (reply: object): void => {
    if (answered) return;
    answered = true;
    if (tracked) d.track.end();
    socket.end(`${JSON.stringify(reply)}\n`);
  };
  const refuse = (why: string, label: string, otherwise: string, bad?: Refused['bad_request']): void => {
    d.log(`${article(label)} request was refused (${why}); ${otherwise}`);
    answer({ kind: 'refused', why, ...(bad ? { bad_request: bad } : {}) } satisfies Refused);
  };
  socket.on('error', () => undefined);
  socket.setEncoding('utf8');
  const onData = (chunk: string): void => {
    if (answered) return;
    buffer += chunk;
    if (buffer.length > MAX_REQUEST_BYTES)
      return refuse('request too large', 'oversized', 'the command does the work itself');
    const end = buffer.indexOf('\n');
    if (end < 0) return;
    socket.off('data', onData);
    const parsed = parseRequest(buffer.slice(0, end));
    if ('refused' in parsed)
      return refuse(parsed.refused.why, parsed.label, 'the command does the work itself', parsed.refused.bad_request);
    const { kind, entry, request } = parsed;
    const why = scopeRefusal(kind, request, d);
    if (entry.stream) {
      // A stream is activity (the idle clock), not a request to wait for while draining.
      d.track.begin();
      d.track.end();
      if (why) return answer({ kind: 'refused', why } satisfies Refused);
      answered = true;
      // The stream's handler reads what follows the request line (a follower's cancel). The
      // request is what this entry's schema made of the line (parseRequest): TypeScript cannot
      // tie the two across the union of entries, hence `never`.
      return entry.serve(request as never, socket, buffer.slice(end + 1), d);
    }
    d.track.begin();
    tracked = true;
    if (why) return refuse(why, labelOf(kind), entry.otherwise);
    void serveUnary(entry, request, d).then(answer);
  };
  socket.on('data', onData);
}

/** The kind's handler, its answer checked against the kind's reply schema; its failure answered by the kind's rule. */
async function serveUnary(entry: AnyUnary, request: unknown, d: Dispatching): Promise<object> {
  const what = (entry.what as (r: unknown) => string)(request);
  let reply: unknown;
  try {
    reply = await (entry.serve as (r: unknown, ctx: ServeContext) => Promise<unknown>)(request, d);
  } catch (err) {
    // A verdict on the request (an unknown run, an ambiguous name) is the command's error, as
    // the command would have made it: answered once, not made again.
    const message = (err as Error)?.message ?? String(err);
    if (!entry.idempotent) {
      d.log(`${what}: the start failed: ${message} (the command's error)`);
      return errorReply(err);
    }
    if (err instanceof CliError) {
      d.log(`${what}: the report failed: ${message} (the command's error)`);
      return errorReply(err);
    }
    // The worker's own trouble (its connection): a read changes nothing, so the command does it itself.
    d.log(`${what}: the report failed: ${message}; ${entry.otherwise}`);
    return { kind: 'refused', why: `the report failed: ${message}` } satisfies Refused;
  }
  const checked = (entry.reply as z.ZodType).safeParse(reply);
  if (!checked.success) {
    const why = `the worker's answer is not one: ${issuesOf(checked.error)
      .map((i) => `${i.path}: ${i.message}`)
      .join('; ')}`;
    d.log(`${what}: ${why}; ${entry.otherwise}`);
    return entry.idempotent ? ({ kind: 'refused', why } satisfies Refused) : errorReply(new Error(why));
  }
  const line = (entry.said as (q: unknown, r: unknown) => string | undefined)(request, checked.data);
  if (line) d.log(line);
  return checked.data as object;
}

type Parsed = { kind: RequestKind; entry: AnyEntry; request: unknown } | { refused: Refused; label: string };

/** The request of a line: its kind's entry and the request as its schema read it, or why it is none. */
function parseRequest(line: string): Parsed {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return badRequest('?', [{ path: '', message: 'not JSON' }]);
  }
  const kind = typeof json === 'object' && json !== null ? (json as { kind?: unknown }).kind : undefined;
  if (typeof kind !== 'string' || !Object.hasOwn(REQUESTS, kind))
    return badRequest(String(kind ?? '?'), [
      { path: 'kind', message: `not a request kind: ${Object.keys(REQUESTS).join(', ')}` },
    ]);
  const entry = REQUESTS[kind as RequestKind];
  const checked = (entry.request as z.ZodType).safeParse(json);
  if (!checked.success) return badRequest(kind, issuesOf(checked.error));
  return { kind: kind as RequestKind, entry, request: checked.data };
}

function badRequest(kind: string, issues: RequestIssue[]): Parsed {
  const said = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
  return {
    refused: { kind: 'refused', why: `a bad ${kind} request: ${said}`, bad_request: { kind, issues } },
    label: labelOf(kind),
  };
}

function issuesOf(error: z.ZodError): RequestIssue[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
}

/** Why this worker must not serve the request (then the command does the work itself). */
function scopeRefusal(kind: RequestKind, r: unknown, d: Dispatching): string | undefined {
  const { scope } = REQUESTS[kind];
  const q = r as { code_id: string; root: string; address?: string; cwd?: string };
  if (!d.open()) return 'the worker is draining';
  if (q.code_id !== codeId()) return `the worker is build ${codeId()}, the command ${q.code_id}`;
  if (scope.address && q.address !== d.session.endpoint.address)
    return `the worker polls ${d.session.endpoint.address}`;
  if (q.root !== d.checkout.root) return `the worker serves ${d.checkout.root}`;
  // A run started here works in, and a report is made for, a directory of this checkout only.
  if (scope.cwd && !within(d.checkout.root, q.cwd)) return `${q.cwd} is not in ${d.checkout.root}`;
  return undefined;
}

/** Whether `dir` is `root` or below it. */
function within(root: string, dir: unknown): boolean {
  if (typeof dir !== 'string' || !isAbsolute(dir)) return false;
  const rel = relative(root, resolve(dir));
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** The worker log's name of a kind: both starts are a start. */
function labelOf(kind: string): string {
  return kind === 'start_argv' ? 'start' : kind;
}

function article(label: string): string {
  return `${/^[aeiou]/.test(label) ? 'an' : 'a'} ${label}`;
}
