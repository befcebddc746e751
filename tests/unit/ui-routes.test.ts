/**
 * The `ll-loop ui` server's routes over real HTTP on 127.0.0.1 (ui/server/): the token on every
 * route (401 without), the Host check, actions only by POST with the token in their header (405
 * for another method, 401 with the token only in the URL), no CORS, one follower per run however
 * many pages watch it, and run output that stays data: JSON on one `data:` line, never a forged
 * message, and a page title that stays text.
 */
import { request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TimedEvent } from '../../fsm/run/events.js';
import { pageAssets, pageHtml } from '../../ui/server/page-assets.js';
import type { RunFollowSink, RunSource } from '../../ui/server/run-source.js';
import { startUiServer, type UiServer } from '../../ui/server/ui-server.js';
import { PortTakenError } from '../../ui/server/ui-server.js';
import type { ActRequest, RunMessage } from '../../ui/server/wire.js';

const HOSTILE = '<script>alert(1)</script>\n\ndata: {"type":"end","status":"forged"}\n\n';

/** A source of one run whose follower the test drives. */
class TestSource implements RunSource {
  follows = 0;
  stops: string[] = [];
  sink: RunFollowSink | undefined;
  listRuns = () =>
    Promise.resolve([
      {
        id: 'demo-1',
        loop: 'demo',
        status: 'running',
        open: true,
        outcome: 'running',
        started: new Date(0).toISOString(),
      },
    ]);
  followRun(_id: string, sink: RunFollowSink): Promise<void> {
    this.follows += 1;
    this.sink = sink;
    sink.graph({ loop: 'demo', nodes: [{ name: 'a', initial: true, terminal: false, failure: false }], edges: [] });
    sink.event({ event: 'loop_start', loop: 'demo', initial: 'a', max_iterations: 5, seq: 1, ts: 'x' } as TimedEvent);
    return new Promise(() => undefined);
  }
  stop(id: string) {
    this.stops.push(id);
    return Promise.resolve({ ok: true, message: `stopped ${id}` });
  }
  resume(id: string) {
    return Promise.resolve({ ok: false, message: `${id} cannot be resumed` });
  }
  acts: Array<[string, ActRequest]> = [];
  act(id: string, request: ActRequest) {
    this.acts.push([id, request]);
    return Promise.resolve({ ok: true, message: `${request.action} ${id}` });
  }
  status(id: string) {
    return Promise.resolve(id === 'demo-1' ? null : ('unknown' as const));
  }
}

let server: UiServer;
let source: TestSource;
let dir: string;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, method, path, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens an event stream and collects its messages (in `messages`) until `done` holds. */
function stream(
  path: string,
  done: (messages: RunMessage[]) => boolean,
): { messages: RunMessage[]; ended: Promise<RunMessage[]> } {
  const messages: RunMessage[] = [];
  const ended = new Promise<RunMessage[]>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path }, (res) => {
      expect(res.headers['content-type']).toContain('text/event-stream');
      let buffer = '';
      res.on('data', (d: Buffer) => {
        buffer += d.toString();
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split('\n').filter((l) => l.startsWith('data: '));
          for (const line of lines) messages.push(JSON.parse(line.slice('data: '.length)) as RunMessage);
        }
        if (done(messages)) {
          req.destroy();
          resolve(messages);
        }
      });
    });
    req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
    req.end();
  });
  return { messages, ended };
}

const q = (): string => `token=${encodeURIComponent(server.token)}`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'll-ui-routes-'));
  writeFileSync(join(dir, 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, 'app.css'), 'body{}');
  source = new TestSource();
  server = await startUiServer({ source, assets: pageAssets('<script>alert("title")</script>', dir) });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ll-loop ui routes', () => {
  it('listen on 127.0.0.1 with a long random token in the URL', () => {
    expect(server.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/\\?token=[A-Za-z0-9_-]{40,}$`));
  });

  it('refuse every route without the token (401), and with a wrong one', async () => {
    for (const path of ['/', '/app.js', '/api/runs', '/api/runs/stream', '/api/run/demo-1/stream'])
      expect((await call('GET', path)).status, path).toBe(401);
    expect((await call('GET', `/api/runs?token=${server.token.slice(1)}x`)).status).toBe(401);
    expect((await call('GET', `/api/runs?${q()}`)).status).toBe(200);
  });

  it('refuse a Host that is not this server (a rebound DNS name)', async () => {
    const r = await call('GET', `/api/runs?${q()}`, { Host: `evil.example:${server.port}` });
    expect(r.status).toBe(403);
  });

  it('serve the page with a strict CSP, no referrer, no CORS, and a title that stays text', async () => {
    const r = await call('GET', `/?${q()}`);
    expect(r.status).toBe(200);
    expect(r.headers['content-security-policy']).toContain("script-src 'self'");
    expect(r.headers['referrer-policy']).toBe('no-referrer');
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
    expect(r.body).toContain('&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt;');
    expect(r.body).not.toContain('<script>alert');
    expect(pageHtml('a"b<', 't')).toContain('/app.js?token=a%22b%3C');
  });

  it('take actions only by POST with the token in its header', async () => {
    const get = await call('GET', `/api/run/demo-1/stop?${q()}`);
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect((await call('POST', '/api/run/demo-1/stop')).status).toBe(401);
    expect((await call('POST', `/api/run/demo-1/stop?${q()}`)).status).toBe(401);
    const preflight = await call('OPTIONS', `/api/run/demo-1/stop?${q()}`, {
      Origin: 'https://evil.example',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'x-ll-token',
    });
    expect(preflight.status).toBe(405);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.headers['access-control-allow-headers']).toBeUndefined();
    expect(source.stops).toEqual([]);
    const post = await call('POST', '/api/run/demo-1/stop', { 'X-LL-Token': server.token });
    expect(post.status).toBe(200);
    expect(JSON.parse(post.body)).toEqual({ ok: true, message: 'stopped demo-1' });
    expect(source.stops).toEqual(['demo-1']);
    const resume = await call('POST', '/api/run/demo-1/resume', { 'X-LL-Token': server.token });
    expect(resume.status).toBe(409);
  });

  it('pass pause, steer, answer and rerun to the source with their bodies checked', async () => {
    const token = { 'X-LL-Token': server.token, 'Content-Type': 'application/json' };
    expect((await call('POST', '/api/run/demo-1/pause', token)).status).toBe(200);
    const steer = await call(
      'POST',
      '/api/run/demo-1/steer',
      token,
      JSON.stringify({ to: 'b', note: 'n', context: ['k=v'] }),
    );
    expect(steer.status).toBe(200);
    const answer = await call(
      'POST',
      '/api/run/demo-1/answer',
      token,
      JSON.stringify({ reply: { kind: 'json', value: { a: 1 } } }),
    );
    expect(answer.status).toBe(200);
    const rerun = await call('POST', '/api/run/demo-1/rerun', token, JSON.stringify({ from: 'a#2' }));
    expect(rerun.status).toBe(200);
    expect(source.acts).toEqual([
      ['demo-1', { action: 'pause' }],
      ['demo-1', { action: 'steer', to: 'b', note: 'n', context: ['k=v'] }],
      ['demo-1', { action: 'answer', reply: { kind: 'json', value: { a: 1 } } }],
      ['demo-1', { action: 'rerun', from: 'a#2' }],
    ]);
    const bad = await call('POST', '/api/run/demo-1/answer', token, JSON.stringify({ reply: { kind: 'maybe' } }));
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ ok: false, message: expect.stringContaining('reply') as unknown });
    expect((await call('POST', '/api/run/demo-1/steer', token, 'not json')).status).toBe(400);
    expect((await call('POST', '/api/run/demo-1/steer', token, 'x'.repeat(70 * 1024))).status).toBe(413);
    expect((await call('POST', '/api/run/demo-1/pause', {}, '{}')).status).toBe(401);
    expect(source.acts).toHaveLength(4);
  });

  it('answer an unknown path with 404', async () => {
    expect((await call('GET', `/api/nothing?${q()}`)).status).toBe(404);
  });

  it("answer an unknown run's status with 404 naming it, a known one with 200", async () => {
    const unknown = await call('GET', `/api/run/nobody-7/status?${q()}`);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toEqual({ ok: false, message: 'no run nobody-7 on this Temporal server' });
    const known = await call('GET', `/api/run/demo-1/status?${q()}`);
    expect([known.status, JSON.parse(known.body)]).toEqual([200, { status: null }]);
  });

  it('follow a run once for every page, and keep its output data', async () => {
    const first = stream(`/api/run/demo-1/stream?${q()}`, (m) => m.some((x) => x.type === 'output'));
    const second = stream(`/api/run/demo-1/stream?${q()}`, (m) => m.some((x) => x.type === 'output'));
    // Both pages are subscribed once each has its backlog (the graph first); then the action prints.
    const deadline = Date.now() + 10_000;
    const subscribed = (): boolean => [first, second].every((p) => p.messages.some((m) => m.type === 'events'));
    while (!subscribed() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    source.sink!.output({ workflowId: 'demo-1', state: 'a', pass: 1, text: HOSTILE });
    const [a, b] = await Promise.all([first.ended, second.ended]);
    expect(source.follows).toBe(1);
    for (const messages of [a, b]) {
      expect(messages[0]!.type).toBe('graph');
      expect(messages.find((m) => m.type === 'events')).toBeDefined();
      expect(messages.find((m) => m.type === 'output')).toMatchObject({ text: HOSTILE });
      expect(messages.find((m) => m.type === 'end')).toBeUndefined();
    }
  });

  it('say so when the port asked for is taken', async () => {
    await expect(startUiServer({ source, port: server.port })).rejects.toBeInstanceOf(PortTakenError);
    await expect(startUiServer({ source, port: server.port })).rejects.toMatchObject({
      fix: expect.stringContaining('--port') as unknown,
    });
  });
});
