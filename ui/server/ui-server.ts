/**
 * The `ll-loop ui` HTTP server: bound to 127.0.0.1 only, one random token per start, its routes
 * (routes.ts) over a run source (run-source.ts). A port already taken is a clear error naming
 * another way (`--port`), never a crash.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { BODY_LIMIT } from './act-request.js';
import { newToken, plain } from './guard.js';
import { pageAssets, type PageAssets } from './page-assets.js';
import { RunHub } from './run-hub.js';
import type { RunSource } from './run-source.js';
import { handle } from './routes.js';
import { RunsFeed } from './runs-feed.js';

/** The address the server binds: this machine only. */
const UI_HOST = '127.0.0.1';

/** The port asked for is in use. */
export class PortTakenError extends CliError {
  override readonly name = 'PortTakenError';
  constructor(readonly port: number) {
    super(
      `port ${port} on ${UI_HOST} is already taken by another program`,
      `pick another with ll-loop ui --port <n>, or leave --port out to let the system choose a free one`,
      EXIT.usage,
    );
  }
}

export interface UiServerOptions {
  source: RunSource;
  /** 0 (the default): a free port the system picks. */
  port?: number;
  /** Default: a fresh random one. */
  token?: string;
  /** The page's title (the project's name). */
  title?: string;
  /** The built page's files (tests of the routes give their own). */
  assets?: PageAssets;
}

export interface UiServer {
  port: number;
  token: string;
  /** The address to open: `http://127.0.0.1:<port>/?token=…`. */
  url: string;
  hub: RunHub;
  feed: RunsFeed;
  close(): Promise<void>;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      reject(err.code === 'EADDRINUSE' || err.code === 'EACCES' ? new PortTakenError(port) : err);
    };
    const onListening = (): void => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, UI_HOST);
  });
}

/** A POST's body, whole; rejects (and stops reading) past {@link BODY_LIMIT}. */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (d: Buffer) => {
      size += d.length;
      if (size > BODY_LIMIT) {
        req.removeAllListeners('data');
        req.resume();
        reject(new Error('too large'));
      } else chunks.push(d);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Starts the server; resolves once it listens. */
export async function startUiServer(opts: UiServerOptions): Promise<UiServer> {
  const token = opts.token ?? newToken();
  const hub = new RunHub(opts.source);
  const feed = new RunsFeed(opts.source);
  const assets = opts.assets ?? pageAssets(opts.title ?? 'll-loop');
  const ctx = { token, port: opts.port ?? 0, source: opts.source, hub, feed, assets };
  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      // A GET's body is never needed: drain it, so the connection can be reused.
      req.resume();
      void handle(req, res, ctx);
      return;
    }
    readBody(req).then(
      (body) => handle(req, res, ctx, body),
      () => plain(res, 413, `a request body holds at most ${BODY_LIMIT} bytes`),
    );
  });
  const port = await listen(server, opts.port ?? 0);
  ctx.port = port;
  feed.warm();
  return {
    port,
    token,
    url: `http://${UI_HOST}:${port}/?token=${encodeURIComponent(token)}`,
    hub,
    feed,
    close: () =>
      new Promise<void>((resolve) => {
        feed.stop();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
