/**
 * `ll-loop mcp [--http PORT] [--read-only]`: this project's loops and runs served to agents over
 * MCP (client/mcp/): over stdio (the client starts it), or over streamable HTTP on 127.0.0.1 with
 * a token, until Ctrl-C. `ll-loop mcp install --client C [--print] [--read-only]`: the client's
 * configuration, written (its other servers kept) or printed.
 */
import { bool, str, type CommandContext, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { MCP_CLIENTS } from '../mcp/install.js';

const USAGE = `ll-loop mcp [--http PORT] [--read-only] | ll-loop mcp install --client ${MCP_CLIENTS.join('|')} [--print] [--read-only]`;

/** Resolves on the first SIGINT or SIGTERM, or when `also` resolves. */
function untilStopped(also?: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
    void also?.then(done);
  });
}

async function install(ctx: CommandContext, readOnly: boolean): Promise<number> {
  const client = str(ctx, 'client');
  if (client === undefined) throw new UsageError('mcp install needs --client', USAGE);
  if (ctx.positionals.length > 1)
    throw new UsageError(`unexpected arguments: ${ctx.positionals.slice(1).join(' ')}`, USAGE);
  const { installPlan, writePlan } = await import('../mcp/install.js');
  const plan = installPlan(client, { cwd: ctx.cwd, readOnly });
  if (bool(ctx, 'print')) {
    ctx.out(`# ${plan.file}\n${plan.entry.trimEnd()}\n`);
    return EXIT.ok;
  }
  writePlan(plan);
  ctx.out(`wrote the ll-loop MCP server into ${plan.file} (its other entries kept)\n`);
  return EXIT.ok;
}

async function serve(ctx: CommandContext, readOnly: boolean): Promise<number> {
  const portText = str(ctx, 'http');
  const options = { cwd: ctx.cwd, readOnly, env: { ...process.env } };
  if (portText === undefined) {
    const [{ createMcpServer }, { StdioServerTransport }] = await Promise.all([
      import('../mcp/server.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
    ]);
    const { server, stop } = createMcpServer(options);
    // stdout is the protocol's: the transport keeps its own handle on it, and anything else this
    // process would print there (a note of a layer below) goes to stderr instead.
    const stdout = process.stdout;
    const protocol = { write: stdout.write.bind(stdout), once: stdout.once.bind(stdout) };
    stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write;
    const transport = new StdioServerTransport(process.stdin, protocol as unknown as typeof stdout);
    // The client closing stdin (or the transport) ends the server.
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
    });
    await server.connect(transport);
    await untilStopped(closed);
    stop();
    await server.close().catch(() => undefined);
    return EXIT.ok;
  }
  const port = Number(portText);
  if (!(Number.isInteger(port) && port >= 0 && port <= 65535))
    throw new UsageError(`--http must be a port number (0-65535), got "${portText}"`, 'll-loop mcp --http 8791');
  const [{ serveMcpHttp }, { newToken }] = await Promise.all([
    import('../mcp/http.js'),
    import('../../ui/server/guard.js'),
  ]);
  const token = process.env.LL_MCP_TOKEN?.trim() || newToken();
  const served = await serveMcpHttp({ ...options, port, token });
  ctx.out(
    `ll-loop mcp: ${served.url}${readOnly ? ' (read-only)' : ''}\n  token: ${token} (send it as Authorization: Bearer <token>)\n(Ctrl-C stops the server)\n`,
  );
  await untilStopped();
  await served.close();
  return EXIT.ok;
}

export const mcpSpec: CommandSpec = {
  usage: `mcp [--http PORT] [--read-only] | mcp install --client C [--print]   serve loops and runs to agents over MCP`,
  flags: {
    http: { type: 'string' },
    'read-only': { type: 'boolean' },
    client: { type: 'string' },
    print: { type: 'boolean' },
  },
  run(ctx) {
    const readOnly = bool(ctx, 'read-only');
    if (ctx.positionals[0] === 'install') {
      if (str(ctx, 'http') !== undefined) throw new UsageError('--http goes with ll-loop mcp, not mcp install', USAGE);
      return install(ctx, readOnly);
    }
    if (ctx.positionals.length) throw new UsageError(`unexpected arguments: ${ctx.positionals.join(' ')}`, USAGE);
    if (str(ctx, 'client') !== undefined || bool(ctx, 'print'))
      throw new UsageError('--client and --print go with ll-loop mcp install', USAGE);
    return serve(ctx, readOnly);
  },
};
