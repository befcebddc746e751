/**
 * `ll-loop mcp --http PORT`: the MCP server over streamable HTTP, guarded as `ll-loop ui` is
 * (ui/server/guard.ts): bound to 127.0.0.1 only, the `Host` header must name this server (a page
 * of another site that rebinds its DNS name to 127.0.0.1 is refused, 403), and every request
 * carries the token (`Authorization: Bearer <token>` or `X-LL-Token`, compared in constant time;
 * without it: 401). One MCP session per client (the `Mcp-Session-Id` header), each with a server
 * of its own (server.ts).
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, type McpOptions } from './server.js';

const HOST = '127.0.0.1';
/** The endpoint's path: `http://127.0.0.1:<port>/mcp`. */
const MCP_PATH = '/mcp';
const BODY_LIMIT = 4 * 1024 * 1024;

export interface McpHttpServer {
  port: number;
  url: string;
  close(): Promise<void>;
}

/** Whether the request carries `token` (constant time). */
function tokenGiven(req: IncomingMessage, token: string): boolean {
  const auth = req.headers.authorization;
  const header = req.headers['x-ll-token'];
  const given = auth?.startsWith('Bearer ')
    ? auth.slice('Bearer '.length).trim()
    : Array.isArray(header)
      ? header[0]
      : header;
  if (typeof given !== 'string') return false;
  const a = Buffer.from(token);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (d: Buffer) => {
      size += d.length;
      if (size > BODY_LIMIT) reject(new Error(`a request body holds at most ${BODY_LIMIT} bytes`));
      else chunks.push(d);
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (err) {
        reject(err as Error);
      }
    });
    req.on('error', reject);
  });
}

/** Serve the MCP server on 127.0.0.1:`port` (0: a free one); resolves once it listens. */
export async function serveMcpHttp(opts: McpOptions & { port: number; token: string }): Promise<McpHttpServer> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; stop: () => void }>();
  let port = opts.port;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const host = req.headers.host?.toLowerCase();
    if (!host || ![`${HOST}:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host))
      return refuse(res, 403, `this server answers only to ${HOST}:${port}`);
    if (new URL(req.url ?? '/', `http://${HOST}`).pathname !== MCP_PATH)
      return refuse(res, 404, `the MCP endpoint is ${MCP_PATH}`);
    if (!tokenGiven(req, opts.token))
      return refuse(
        res,
        401,
        'missing or wrong token: send the token ll-loop mcp printed as Authorization: Bearer <token>',
      );
    const id = req.headers['mcp-session-id'];
    const session = typeof id === 'string' ? sessions.get(id) : undefined;
    if (session) {
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      return session.transport.handleRequest(req, res, body);
    }
    if (typeof id === 'string') return refuse(res, 404, `no session ${id}: initialize again`);
    if (req.method !== 'POST') return refuse(res, 400, 'no session: initialize first (POST an initialize request)');
    const body = await readJson(req);
    if (!isInitializeRequest(body)) return refuse(res, 400, 'no session: initialize first');
    const made = createMcpServer(opts);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, { transport, stop: made.stop }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      made.stop();
    };
    await made.server.connect(transport);
    return transport.handleRequest(req, res, body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) refuse(res, 400, `bad request: ${(err as Error).message}`);
      else res.end();
    });
  });
  port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, HOST, () => {
      server.off('error', reject);
      resolve((server.address() as { port: number }).port);
    });
  });
  return {
    port,
    url: `http://${HOST}:${port}${MCP_PATH}`,
    close: async () => {
      for (const s of sessions.values()) await s.transport.close().catch(() => undefined);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
