/**
 * The worker's side of its socket (worker/socket/dispatch.ts) on a real Unix socket in this
 * process: every request kind of the table (worker/socket/requests.ts) is checked against its
 * schema where it is received, and a malformed one — of each kind — is refused with its kind and
 * its issues (never cast, never handled), and said in the worker's log; so are a line that is not
 * JSON and an unknown kind. A request that matches its schema but comes from another build is
 * refused as before. None of these reaches a handler, so the worker's session here is only its
 * endpoint: nothing asks Temporal.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeId } from '../../host/build-info.js';
import { askWorkerOnce } from '../../runs/transport/ask.js';
import { dispatch, type Dispatching } from '../../worker/socket/dispatch.js';
import { REQUESTS } from '../../worker/socket/requests.js';
import type { RequestKind } from '../../runs/transport/schemas.js';
import type { Refused } from '../../runs/transport/replies.js';

const ADDRESS = '127.0.0.1:27998';
let dir: string;
let path: string;
let server: Server;
const log: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'll-dispatch-'));
  path = join(dir, 's.sock');
  const d = {
    session: { endpoint: { address: ADDRESS, namespace: 'default' } },
    checkout: { root: dir, queue: 'q', lockDomain: 'checkout:h:/p' },
    starter: undefined,
    parseRun: undefined,
    log: (line: string) => log.push(line),
    open: () => true,
    track: { begin: () => undefined, end: () => undefined },
  } as unknown as Dispatching;
  server = createServer((socket) => dispatch(socket, d));
  await new Promise<void>((resolve) => server.listen(path, resolve));
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

const addressed = () => ({ code_id: codeId(), address: ADDRESS, root: dir });

/** Per kind: a request that matches its schema but one field, and that field's path. */
const malformed = (): Record<RequestKind, { request: Record<string, unknown>; path: string }> => ({
  start: {
    request: {
      ...addressed(),
      definition: { name: 'two', initial: 'a' },
      file: 'two.yaml',
      cwd: '/x',
      id_base: 'two-20261202T000000',
      env: {},
      data_context: [],
      lock: { none: true, wait: false },
    },
    path: 'definition',
  },
  start_argv: {
    request: { ...addressed(), argv: ['run', 'two'], cwd: '/x', env: {}, stamp: 'yesterday' },
    path: 'stamp',
  },
  status: { request: { ...addressed(), cwd: '/x', target: 42 }, path: 'target' },
  logs: { request: { ...addressed(), cwd: '/x', target: 'two', item: -1 }, path: 'item' },
  history: { request: { ...addressed(), cwd: '/x', loop: 'two', events: 'state_enter' }, path: 'events' },
  inbox: { request: { ...addressed(), project: null }, path: 'here' },
  running: { request: { ...addressed(), cwd: '/x', all_projects: 'yes' }, path: 'all_projects' },
  queues: { request: { ...addressed() }, path: 'cwd' },
  follow: { request: { code_id: codeId(), root: dir, workflow_id: 'two-1' }, path: 'action_output' },
});
const KINDS = Object.keys(REQUESTS) as RequestKind[];

const ask = (request: object | string) =>
  typeof request === 'string' ? askRaw(request) : askWorkerOnce<Refused>(path, request, 10_000);

/** A raw line (not JSON), answered as any other. */
function askRaw(line: string): Promise<Refused | undefined> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${line}\n`));
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => resolve(text ? (JSON.parse(text.slice(0, text.indexOf('\n'))) as Refused) : undefined));
  });
}

describe('the request table', () => {
  it('has one entry per kind, each with its request schema, its answer schema and its handler', () => {
    expect(Object.keys(REQUESTS).sort()).toEqual(
      ['follow', 'history', 'inbox', 'logs', 'queues', 'running', 'start', 'start_argv', 'status'].sort(),
    );
    for (const [kind, entry] of Object.entries(REQUESTS)) {
      expect(entry.request.safeParse({ kind }).success, kind).toBe(false);
      expect('reply' in entry ? entry.reply : entry.message, kind).toBeDefined();
      expect(typeof entry.serve, kind).toBe('function');
    }
  });
});

describe('the worker refuses a request that is not one', () => {
  it.each(KINDS)('a malformed %s request: refused with its issues', async (kind) => {
    const { request, path: field } = malformed()[kind];
    const reply = await ask({ kind, ...request });
    expect(reply).toMatchObject({ kind: 'refused', bad_request: { kind } });
    expect(reply!.bad_request!.issues.map((i) => i.path)).toEqual([field]);
    expect(reply!.why).toContain(`a bad ${kind} request: ${field}: `);
    const label = kind === 'start_argv' ? 'start' : kind;
    expect(
      log.some((line) => line.includes(`request was refused (a bad ${kind} request: ${field}`)),
      log.join('\n'),
    ).toBe(true);
    expect(
      log.some((line) => line.startsWith(`${/^[aeiou]/.test(label) ? 'an' : 'a'} ${label} request was refused`)),
    ).toBe(true);
  });

  it('a line that is not JSON, and a kind that is not one: refused, saying so', async () => {
    expect(await ask('{"kind": "status",')).toMatchObject({
      kind: 'refused',
      bad_request: { kind: '?', issues: [{ path: '', message: 'not JSON' }] },
    });
    const unknown = await ask({ kind: 'reboot', ...addressed() });
    expect(unknown).toMatchObject({ kind: 'refused', bad_request: { kind: 'reboot', issues: [{ path: 'kind' }] } });
    expect(unknown!.why).toContain('not a request kind: start, start_argv, status');
    expect(await ask({ nokind: true })).toMatchObject({ kind: 'refused', bad_request: { kind: '?' } });
  });

  it('a well-formed request of another build, server or checkout: refused as before, no issues', async () => {
    const status = { kind: 'status', ...addressed(), cwd: dir, target: 'two' };
    expect(await ask({ ...status, code_id: 'another' })).toEqual({
      kind: 'refused',
      why: `the worker is build ${codeId()}, the command another`,
    });
    expect(await ask({ ...status, address: '127.0.0.1:1' })).toEqual({
      kind: 'refused',
      why: `the worker polls ${ADDRESS}`,
    });
    expect(await ask({ ...status, cwd: tmpdir() })).toEqual({ kind: 'refused', why: `${tmpdir()} is not in ${dir}` });
    expect(log).toContain(
      `a status request was refused (${tmpdir()} is not in ${dir}); the command asks Temporal itself`,
    );
  });
});
