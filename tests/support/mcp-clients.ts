/**
 * The MCP SDK's own client on `ll-loop mcp` (the built binary), for the e2e tests of the MCP
 * server: over stdio (the client starts the server) and over streamable HTTP (the server started
 * beside the test); every client and server is ended by `closeAll`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { BIN } from './cli.js';
import { waitFor } from './processes.js';

/** Where a server runs: the project and its whole environment. */
export interface McpPlace {
  cwd: string;
  env: Record<string, string>;
}

/** An environment without its unset names (what a child process takes). */
export function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

/** Every tool, by name. */
export const TOOLS = [
  'answer',
  'create_loop',
  'inbox',
  'list_loops',
  'list_runs',
  'pause',
  'rerun',
  'run_logs',
  'run_status',
  'show_loop',
  'start_run',
  'steer',
  'stop_run',
  'unpause',
  'validate_loop',
];
export const READ_ONLY = ['inbox', 'list_loops', 'list_runs', 'run_logs', 'run_status', 'show_loop', 'validate_loop'];

/** A one-state loop that echoes its context value. */
export const QUICK = [
  'name: quick',
  'initial: say',
  'context:',
  '  word: hello',
  'states:',
  '  say:',
  '    action: "echo said ${context.word}"',
  '    next: done',
  '  done:',
  '    terminal: true',
  '',
].join('\n');

export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A tool's structured output, after checking it did not fail. */
export async function ok(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const result = await call(client, name, args);
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent!;
}

/** Waits (on `run_status`, not on time) for the run to complete; returns its last status. */
export async function completedStatus(client: Client, run: string): Promise<Record<string, unknown>> {
  let status: Record<string, unknown> = {};
  await waitFor(
    'the run to complete',
    async () => (status = await ok(client, 'run_status', { run })).status === 'completed',
    60_000,
    200,
  );
  return status;
}

export const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** Clients and servers made for one test file, all ended by `closeAll`. */
export function mcpClients() {
  const clients: Client[] = [];
  const children: ChildProcess[] = [];
  return {
    /** A client of `ll-loop mcp <args>` over stdio, started in `where`. */
    async stdio(where: McpPlace, args: string[] = [], transport?: StdioClientTransport): Promise<Client> {
      const client = new Client({ name: 'll-loop-e2e', version: '1' });
      await client.connect(
        transport ??
          new StdioClientTransport({
            command: process.execPath,
            args: [BIN, 'mcp', ...args],
            cwd: where.cwd,
            env: where.env,
            stderr: 'pipe',
          }),
      );
      clients.push(client);
      return client;
    },
    /** `ll-loop mcp --http 0` started beside the test, once it printed its URL. */
    async httpServer(where: McpPlace, token: string): Promise<URL> {
      const child = spawn(process.execPath, [BIN, 'mcp', '--http', '0'], {
        cwd: where.cwd,
        env: { ...where.env, LL_MCP_TOKEN: token },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let out = '';
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      return new Promise<URL>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /^ll-loop mcp: (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(out);
          if (m) resolve(new URL(m[1]!));
        });
        child.once('exit', (code) => reject(new Error(`ll-loop mcp --http exited (${code}): ${out}${err}`)));
      });
    },
    async http(url: URL, token: string): Promise<Client> {
      const transport = new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      });
      const client = new Client({ name: 'll-loop-e2e-http', version: '1' });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async closeAll(): Promise<void> {
      for (const c of clients) await c.close().catch(() => undefined);
      for (const child of children) child.kill('SIGTERM');
    },
  };
}
