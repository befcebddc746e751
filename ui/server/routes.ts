/**
 * The `ll-loop ui` server's routes, typed: each is a method, a path pattern and a handler. Every
 * request passes the guard first (guard.ts: host, token, POST-only actions); a path that exists
 * with another method is 405 (with `Allow`), an unknown path 404.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { json, plain, refusal } from './guard.js';
import type { PageAssets } from './page-assets.js';
import type { RunHub } from './run-hub.js';
import type { RunsFeed } from './runs-feed.js';
import type { RunSource } from './run-source.js';
import { SseStream } from './sse.js';
import { BODY_ACTIONS, parseActRequest } from './act-request.js';

export interface RouteContext {
  token: string;
  port: number;
  source: RunSource;
  hub: RunHub;
  feed: RunsFeed;
  assets: PageAssets;
}

/** `body`: a POST's body, read whole (at most BODY_LIMIT); empty for a GET. */
type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  params: string[],
  ctx: RouteContext,
  body: string,
) => Promise<void> | void;

interface Route {
  method: 'GET' | 'POST';
  /** Matched against the URL's path; its groups are the handler's params (URL-decoded). */
  path: RegExp;
  handler: Handler;
}

const RUN_ID = '([^/]+)';

/** Every route of the server. */
const ROUTES: Route[] = [
  { method: 'GET', path: /^\/$/, handler: (_req, res, _p, ctx) => ctx.assets.sendPage(res, ctx.token) },
  { method: 'GET', path: /^\/app\.js$/, handler: (_req, res, _p, ctx) => ctx.assets.sendFile(res, 'app.js') },
  { method: 'GET', path: /^\/app\.css$/, handler: (_req, res, _p, ctx) => ctx.assets.sendFile(res, 'app.css') },
  { method: 'GET', path: /^\/api\/ping$/, handler: (_req, res) => json(res, 200, { ok: true, app: 'll-loop ui' }) },
  {
    method: 'GET',
    path: /^\/api\/runs$/,
    handler: async (_req, res, _p, ctx) => json(res, 200, { runs: await ctx.feed.list() }),
  },
  {
    method: 'GET',
    path: /^\/api\/runs\/stream$/,
    handler: (_req, res, _p, ctx) => {
      let leave = (): void => undefined;
      const stream = new SseStream(res, () => leave());
      leave = ctx.feed.subscribe(stream);
    },
  },
  {
    method: 'GET',
    path: new RegExp(`^/api/run/${RUN_ID}/stream$`),
    handler: (_req, res, [id], ctx) => {
      let leave = (): void => undefined;
      const stream = new SseStream(res, () => leave());
      leave = ctx.hub.subscribe(id!, stream);
    },
  },
  {
    method: 'POST',
    path: new RegExp(`^/api/run/${RUN_ID}/stop$`),
    handler: async (_req, res, [id], ctx) => answer(res, await ctx.source.stop(id!)),
  },
  {
    method: 'POST',
    path: new RegExp(`^/api/run/${RUN_ID}/resume$`),
    handler: async (_req, res, [id], ctx) => answer(res, await ctx.source.resume(id!)),
  },
  {
    method: 'GET',
    path: new RegExp(`^/api/run/${RUN_ID}/status$`),
    handler: async (_req, res, [id], ctx) => {
      const status = await ctx.source.status(id!);
      // An unknown run is 404, naming it, as the action routes name the run they refuse.
      if (status === 'unknown') json(res, 404, { ok: false, message: `no run ${id!} on this Temporal server` });
      else json(res, 200, { status });
    },
  },
  ...BODY_ACTIONS.map((action): Route => ({
    method: 'POST',
    path: new RegExp(`^/api/run/${RUN_ID}/${action}$`),
    handler: async (_req, res, [id], ctx, body) => {
      const parsed = parseActRequest(action, body);
      if ('problem' in parsed) json(res, 400, { ok: false, message: `${action}: ${parsed.problem}` });
      else answer(res, await ctx.source.act(id!, parsed.request));
    },
  })),
];

function answer(res: ServerResponse, a: { ok: boolean; message: string }): void {
  json(res, a.ok ? 200 : 409, a);
}

/** Routes one request (see the module comment). Never throws: a failing handler is a 500. */
export async function handle(req: IncomingMessage, res: ServerResponse, ctx: RouteContext, body = ''): Promise<void> {
  let url: URL;
  try {
    url = new URL(req.url ?? '/', `http://127.0.0.1:${ctx.port}`);
  } catch {
    plain(res, 400, 'bad request');
    return;
  }
  const refused = refusal(req, url, ctx.token, ctx.port);
  if (refused) {
    plain(res, refused.status, refused.message);
    return;
  }
  const matching = ROUTES.map((r) => ({ r, m: r.path.exec(url.pathname) })).filter((x) => x.m !== null);
  if (matching.length === 0) {
    plain(res, 404, 'not found');
    return;
  }
  const route = matching.find((x) => x.r.method === req.method);
  if (!route) {
    plain(res, 405, `use ${matching.map((x) => x.r.method).join(' or ')}`, {
      Allow: matching.map((x) => x.r.method).join(', '),
    });
    return;
  }
  let params: string[];
  try {
    params = route.m!.slice(1).map((p) => decodeURIComponent(p ?? ''));
  } catch {
    plain(res, 400, 'bad path');
    return;
  }
  try {
    await route.r.handler(req, res, params, ctx, body);
  } catch (err) {
    if (!res.headersSent) json(res, 500, { ok: false, message: (err as Error).message });
    else res.end();
  }
}
