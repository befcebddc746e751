/**
 * An `action_type: mcp_tool` action on the worker: start the server named in the project's
 * `.mcp.json` with the official MCP SDK's stdio client, call the tool, stop the server.
 *
 * Every outcome is a result in the shell's words, which `mcp_result` judges
 * (fsm/evaluators/mcp-result.ts): exit 0 and the tool's result envelope as JSON output; 127 when
 * `.mcp.json`, the server or the tool is missing; 124 when the call outlives the state's timeout;
 * 1 when the server cannot start, crashes, or prints something that is not MCP. The output is
 * then `{ "error": … }` and stderr holds the server's own stderr (its tail). Only cancellation
 * throws. Secrets: `${env.*}` in `params:` is resolved here, and every value the loop names is
 * masked in output and stderr, as for any action.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DEFAULT_INHERITED_ENV_VARS, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { MCP_EXIT } from '../fsm/evaluators/mcp-result.js';
import type { ActionResult, McpCall, RunActionInput } from '../fsm/types.js';
import { UndefinedEnvError, resolveEnvRef, secretValues } from './env-refs.js';
import { maskableSecrets, maskText } from './secret-mask.js';

/** The server's stderr kept for the result: its last characters. */
const STDERR_TAIL_CHARS = 16 * 1024;
/** Tool list pages read before the tool counts as missing (a server rarely has more than one). */
const MAX_TOOL_PAGES = 50;

/** One server of `.mcp.json` (`mcpServers.<name>`), as Claude Code writes it. */
interface McpServerConfig {
  type?: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
}

/** The hooks the activity gives (heartbeat, cancellation); absent outside an activity. */
export interface McpHooks {
  signal?: AbortSignal;
  onHeartbeat?: () => void;
  heartbeatMs?: number;
}

class McpFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/**
 * The SDK's default variables for a server (HOME, LOGNAME, PATH, SHELL, TERM, USER), from the
 * run's environment, not the worker's (activities/action-env.ts). The SDK adds its own reading of
 * them from this process under these: a name the run lacks is the worker's (none is a secret).
 */
function defaultEnvironment(runEnv: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of DEFAULT_INHERITED_ENV_VARS) {
    const value = runEnv[name];
    // As the SDK does: a value that is a shell function is not passed on.
    if (value !== undefined && !value.startsWith('()')) out[name] = value;
  }
  return out;
}

/** Run one MCP tool call; `workerEnv` (the run's environment) fills `${env.*}` and `${VAR}` in `.mcp.json`. */
export async function runMcpTool(
  input: RunActionInput,
  workerEnv: NodeJS.ProcessEnv,
  hooks: McpHooks = {},
): Promise<ActionResult> {
  const started = performance.now();
  const call = input.mcp;
  const elapsed = (): number => Math.round(performance.now() - started);
  if (call === undefined)
    return {
      output: '',
      stderr: '',
      exit_code: 2,
      duration_ms: 0,
      error: `state ${input.state}: mcp_tool action without a call`,
    };
  let args: Record<string, unknown>;
  try {
    args = fillEnvParams(call, input.state, workerEnv);
  } catch (e) {
    if (e instanceof UndefinedEnvError)
      return { output: '', stderr: e.message, exit_code: 2, duration_ms: 0, error: e.message };
    throw e;
  }
  const own = (call.env_params ?? []).flatMap((p) =>
    p.text.parts.flatMap((part) => (typeof part === 'string' ? [] : [part.name])),
  );
  const secrets = maskableSecrets(secretValues(own, input.mask_env, workerEnv));
  const stderr = { text: '' };
  const finish = (exitCode: number, envelope: unknown, extra: Partial<ActionResult> = {}): ActionResult => ({
    output: maskText(JSON.stringify(envelope), secrets),
    stderr: maskText(stderr.text.trimEnd(), secrets),
    exit_code: exitCode,
    duration_ms: elapsed(),
    ...extra,
  });

  let server: McpServerConfig;
  try {
    server = serverConfig(input.cwd, call.server, workerEnv);
  } catch (e) {
    if (e instanceof McpFailure) return finish(e.exitCode, { error: e.message });
    throw e;
  }

  const transport = new StdioClientTransport({
    command: server.command!,
    args: server.args ?? [],
    env: { ...defaultEnvironment(workerEnv), ...(server.env ?? {}) },
    cwd: input.cwd,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr.text = (stderr.text + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
  });
  const controller = new AbortController();
  const where = `MCP server "${call.server}" (${server.command})`;
  // The first transport error says why a connection closed (a dead pipe). A line on stdout that is
  // not JSON-RPC is dropped by the SDK and the request would wait for the timeout: end it now.
  let transportError: Error | undefined;
  transport.onerror = (err) => {
    transportError ??= err;
    if (err instanceof SyntaxError || err.name === 'ZodError') {
      const line = stderr.text.trim().split('\n').pop()?.trim();
      controller.abort(
        new McpFailure(
          `${where} printed something that is not MCP JSON-RPC on stdout (${err.message.slice(0, 200)})${line ? `; its last stderr line: ${line.slice(0, 300)}` : ''}`,
          MCP_EXIT.failed,
        ),
      );
    }
  };
  const client = new Client({ name: 'll-loop', version: '1' });
  client.onerror = () => undefined; // recorded through the transport; a result is the answer
  const timeoutMs = input.timeout_s * 1000;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(
      new McpFailure(
        `MCP server "${call.server}" did not answer ${call.tool} within ${input.timeout_s} s`,
        MCP_EXIT.timeout,
      ),
    );
  }, timeoutMs);
  const onCancel = (): void => controller.abort(hooks.signal?.reason);
  hooks.signal?.addEventListener('abort', onCancel, { once: true });
  const beat = hooks.onHeartbeat ? setInterval(hooks.onHeartbeat, hooks.heartbeatMs ?? 1000) : undefined;
  // Ask the SDK not to time out by itself before our own deadline does.
  const options = { signal: controller.signal, timeout: timeoutMs + 1000 };
  try {
    await abortable(client.connect(transport, options), controller.signal);
    if (!(await offersTool(client, call.tool, options, controller.signal))) {
      return finish(MCP_EXIT.notFound, { error: `${where} has no tool "${call.tool}"` });
    }
    const result = await abortable(
      client.callTool({ name: call.tool, arguments: args }, undefined, options),
      controller.signal,
    );
    return finish(MCP_EXIT.ok, result);
  } catch (e) {
    if (hooks.signal?.aborted) throw hooks.signal.reason instanceof Error ? hooks.signal.reason : e;
    if (timedOut || (e instanceof McpError && e.code === Number(ErrorCode.RequestTimeout))) {
      return finish(
        MCP_EXIT.timeout,
        { error: `${where} did not answer ${call.tool} within ${input.timeout_s} s` },
        { timed_out: true },
      );
    }
    if (e instanceof McpFailure) return finish(e.exitCode, { error: e.message });
    return finish(MCP_EXIT.failed, { error: failureText(where, e, transportError, stderr.text) });
  } finally {
    clearTimeout(timer);
    if (beat) clearInterval(beat);
    hooks.signal?.removeEventListener('abort', onCancel);
    await client.close().catch(() => undefined);
  }
}

/** The tool's arguments with `${env.*}` values filled in. */
function fillEnvParams(call: McpCall, state: string, env: NodeJS.ProcessEnv): Record<string, unknown> {
  const params = structuredClone(call.params);
  for (const { path, text } of call.env_params ?? []) {
    const value = text.parts.map((p) => (typeof p === 'string' ? p : resolveEnvRef(p, state, env))).join('');
    let node = params as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
    const last = path[path.length - 1];
    if (last !== undefined) node[last] = value;
  }
  return params;
}

/** `mcpServers.<name>` of `<cwd>/.mcp.json`, its `${VAR}` filled from the worker environment. */
function serverConfig(cwd: string, name: string, env: NodeJS.ProcessEnv): McpServerConfig {
  const file = join(cwd, '.mcp.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new McpFailure(
      `no .mcp.json in ${cwd}: server "${name}" is not configured (add it under "mcpServers")`,
      MCP_EXIT.notFound,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new McpFailure(`${file} is not valid JSON: ${(e as Error).message}`, MCP_EXIT.failed);
  }
  const servers = (parsed as { mcpServers?: unknown } | null)?.mcpServers;
  if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) {
    throw new McpFailure(`${file} has no "mcpServers" object: server "${name}" is not configured`, MCP_EXIT.notFound);
  }
  const entry = (servers as Record<string, unknown>)[name];
  if (entry === undefined) {
    const known = Object.keys(servers);
    throw new McpFailure(
      `server "${name}" is not in ${file} (${known.length ? `its servers: ${known.join(', ')}` : 'it has none'})`,
      MCP_EXIT.notFound,
    );
  }
  const server = entry as McpServerConfig;
  if (server === null || typeof server !== 'object' || (server.type !== undefined && server.type !== 'stdio')) {
    throw new McpFailure(
      `server "${name}" in ${file} is not a stdio server: ll-loop starts servers with "command" (type "stdio")`,
      MCP_EXIT.failed,
    );
  }
  if (typeof server.command !== 'string' || server.command === '')
    throw new McpFailure(`server "${name}" in ${file} has no "command"`, MCP_EXIT.failed);
  if (server.args !== undefined && (!Array.isArray(server.args) || server.args.some((a) => typeof a !== 'string'))) {
    throw new McpFailure(`server "${name}" in ${file}: "args" must be a list of strings`, MCP_EXIT.failed);
  }
  const expand = (s: string): string =>
    s.replace(
      /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
      (_m, v: string, d: string | undefined) => env[v] || d || '',
    );
  const serverEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(server.env ?? {})) serverEnv[k] = expand(String(v));
  return { command: expand(server.command), args: (server.args ?? []).map(expand), env: serverEnv };
}

/** Whether the server lists `tool` (following pages). */
async function offersTool(
  client: Client,
  tool: string,
  options: { signal: AbortSignal; timeout: number },
  signal: AbortSignal,
): Promise<boolean> {
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page += 1) {
    const listed = await abortable(client.listTools(cursor === undefined ? undefined : { cursor }, options), signal);
    if (listed.tools.some((t) => t.name === tool)) return true;
    cursor = listed.nextCursor;
    if (cursor === undefined) return false;
  }
  return false;
}

/** `promise`, or the abort reason as soon as `signal` fires (the SDK's connect does not watch it). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/** Why the call failed, in a line: a start failure, a protocol break, or an early exit. */
function failureText(where: string, err: unknown, transportError: Error | undefined, stderr: string): string {
  const lastLine = stderr.trim().split('\n').pop()?.trim();
  const said = lastLine ? `; its last stderr line: ${lastLine.slice(0, 300)}` : '';
  const code = (err as { code?: unknown }).code;
  if (code === 'ENOENT' || code === 'EACCES')
    return `${where} could not be started (${String(code)}): check "command" in .mcp.json`;
  if (err instanceof McpError && err.code === Number(ErrorCode.ConnectionClosed))
    return `${where} exited before it answered${said}`;
  if (transportError && !(transportError instanceof McpError))
    return `${where} failed: ${transportError.message.slice(0, 300)}${said}`;
  return `${where} failed: ${err instanceof Error ? err.message.slice(0, 300) : String(err)}${said}`;
}
