/**
 * The command's half of following a run through the checkout worker (runs/follow/
 * follow-through-worker.ts), against a listener on a real Unix socket speaking the follow wire
 * (worker/socket/requests.ts `follow`) as the worker does: the request comes first, then each message
 * is handed on; the end returns the followed run; a refusal, an error or a broken stream hand
 * over to the ordinary follower with what was already shown; Ctrl-C's cancel follows the request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TimedEvent } from '../../fsm/run/events.js';
import { eventKey, followThroughWorker } from '../../runs/follow/follow-through-worker.js';
import type { FollowMessage, FollowRequest } from '../../runs/transport/schemas.js';

const dirs: string[] = [];
const servers: Server[] = [];

afterEach(() => {
  for (const s of servers.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const REQUEST: FollowRequest = {
  kind: 'follow',
  code_id: 'c',
  root: '/r',
  workflow_id: 'w-1',
  action_output: true,
};

const event = (seq: number, extra: Partial<TimedEvent> = {}): TimedEvent =>
  ({ event: 'state_enter', state: `s${seq}`, seq, ts: '2026-11-25T00:00:00.000Z', ...extra }) as TimedEvent;

/** A listener that records the lines it gets and answers with `script` once the request came. */
async function worker(script: (socket: Socket, lines: string[]) => void): Promise<{ path: string; lines: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'll-fw-'));
  dirs.push(dir);
  const path = join(dir, 's.sock');
  const lines: string[] = [];
  const server = createServer((socket) => {
    let buffer = '';
    let scripted = false;
    socket.setEncoding('utf8');
    socket.on('error', () => undefined);
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
        lines.push(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
      }
      if (!scripted && lines.length > 0) {
        scripted = true;
        script(socket, lines);
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { path, lines };
}

const line = (m: FollowMessage) => `${JSON.stringify(m)}\n`;

describe('following a run through the checkout worker (the command side)', () => {
  it('hands on events and notes in order and returns the run at its end', async () => {
    const w = await worker((socket) => {
      socket.write(line({ kind: 'event', event: event(1) }));
      socket.write(line({ kind: 'disconnect', why: 'down' }));
      socket.write(line({ kind: 'reconnect' }));
      socket.write(line({ kind: 'event', event: event(1, { subloop: { depth: 1, workflow_id: 'child' } }) }));
      socket.write(line({ kind: 'note', text: 'note: waiting\n' }));
      socket.end(
        line({ kind: 'end', followed: { workflowId: 'w-1', end: undefined, input: undefined, warnings: ['w'] } }),
      );
    });
    const seen: TimedEvent[] = [];
    const said: string[] = [];
    const f = followThroughWorker(w.path, REQUEST, {
      onEvent: (e) => seen.push(e),
      onDisconnect: (why) => said.push(`disconnect: ${why}`),
      onReconnect: () => said.push('reconnect'),
      onNote: (text) => said.push(text),
    });
    const outcome = await f.done;
    expect(JSON.parse(w.lines[0]!)).toEqual(REQUEST);
    expect(seen.map(eventKey)).toEqual(['#1', 'child#1']);
    expect(said).toEqual(['disconnect: down', 'reconnect', 'note: waiting\n']);
    expect(outcome.kind).toBe('followed');
    if (outcome.kind !== 'followed') return;
    // The run's own events, not its sub-loops', as the history follower gives them.
    expect(outcome.followed.events.map(eventKey)).toEqual(['#1']);
    expect(outcome.followed.warnings).toEqual(['w']);
  });

  it('a stream that breaks before the end hands over with what was shown', async () => {
    const w = await worker((socket) => {
      socket.write(line({ kind: 'event', event: event(1) }));
      socket.write(line({ kind: 'event', event: event(2) }));
      setImmediate(() => socket.destroy());
    });
    const outcome = await followThroughWorker(w.path, REQUEST, { onEvent: () => undefined }).done;
    expect(outcome.kind).toBe('fallback');
    if (outcome.kind === 'fallback') expect([...outcome.shown]).toEqual(['#1', '#2']);
  });

  it('a refusal, an error of the worker, a line that is not JSON or no listener: hand over', async () => {
    for (const answer of [
      line({ kind: 'refused', why: 'draining' }),
      line({ kind: 'error', message: 'boom' }),
      'x\n',
    ]) {
      const w = await worker((socket) => socket.end(answer));
      const outcome = await followThroughWorker(w.path, REQUEST, { onEvent: () => undefined }).done;
      expect(outcome.kind, answer).toBe('fallback');
    }
    const none = await followThroughWorker(join(tmpdir(), 'll-fw-none', 's.sock'), REQUEST, {
      onEvent: () => undefined,
    }).done;
    expect(none).toMatchObject({ kind: 'fallback', shown: new Set() });
  });

  it('Ctrl-C sends a cancel after the request, even before the connection is up', async () => {
    let cancelled: () => void = () => undefined;
    const got = new Promise<void>((resolve) => (cancelled = resolve));
    const w = await worker((socket, lines) => {
      const wait = setInterval(() => {
        if (lines.length < 2) return;
        clearInterval(wait);
        cancelled();
        socket.end(
          line({ kind: 'end', followed: { workflowId: 'w-1', end: undefined, input: undefined, warnings: [] } }),
        );
      }, 5);
    });
    const f = followThroughWorker(w.path, REQUEST, { onEvent: () => undefined });
    f.cancel();
    await got;
    expect(w.lines.map((l) => (JSON.parse(l) as { kind: string }).kind)).toEqual(['follow', 'cancel']);
    expect((await f.done).kind).toBe('followed');
  });
});
