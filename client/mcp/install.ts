/**
 * `ll-loop mcp install --client C`: the MCP configuration of a coding agent, with an `ll-loop`
 * entry that starts `ll-loop mcp` over stdio. Project clients get the project's file (Claude
 * Code's `.mcp.json`, Cursor's `.cursor/mcp.json`, VS Code's `.vscode/mcp.json`, Gemini CLI's
 * `.gemini/settings.json`: each starts its servers in the project); Codex has only a user file
 * (`$CODEX_HOME/config.toml`, default `~/.codex/config.toml`), so its entry names the project
 * as its `cwd`. An existing file keeps everything but the `ll-loop` entry; a file that cannot be
 * read as its format is left alone (an error with the entry to add by hand).
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { CliError, UsageError } from '../../errors/errors.js';
import { PACKAGE_ROOT } from '../../host/paths.js';

export const MCP_CLIENTS = ['claude-code', 'cursor', 'vscode', 'codex', 'gemini'] as const;
type McpClient = (typeof MCP_CLIENTS)[number];

/** The entry's name in every client's file. */
const ENTRY = 'll-loop';

interface Launch {
  command: string;
  args: string[];
}

export interface InstallPlan {
  client: McpClient;
  file: string;
  /** The file's new text (read when asked: `--print` reads no file). */
  text: () => string;
  /** The entry alone, as it goes into the file. */
  entry: string;
}

/** `ll-loop` when the PATH finds it, else this Node and this package's bin (an unlinked checkout). */
function launchCommand(readOnly: boolean, env: NodeJS.ProcessEnv = process.env): Launch {
  const args = ['mcp', ...(readOnly ? ['--read-only'] : [])];
  const onPath = (env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      return dir !== '' && statSync(join(dir, 'll-loop')).isFile();
    } catch {
      return false;
    }
  });
  if (onPath) return { command: 'll-loop', args };
  return { command: process.execPath, args: [join(PACKAGE_ROOT, 'bin', 'll-loop.js'), ...args] };
}

/** The client's configuration file. */
function fileOf(client: McpClient, cwd: string, env: NodeJS.ProcessEnv): string {
  switch (client) {
    case 'claude-code':
      return join(cwd, '.mcp.json');
    case 'cursor':
      return join(cwd, '.cursor', 'mcp.json');
    case 'vscode':
      return join(cwd, '.vscode', 'mcp.json');
    case 'gemini':
      return join(cwd, '.gemini', 'settings.json');
    case 'codex':
      return join(env.CODEX_HOME?.trim() || join(env.HOME?.trim() || homedir(), '.codex'), 'config.toml');
  }
}

/** A JSON client's file with the entry set under `key`, the rest as it was. */
function jsonText(file: string, key: string, entry: Record<string, unknown>): string {
  let doc: Record<string, unknown> = {};
  if (existsSync(file)) {
    const raw = readFileSync(file, 'utf8');
    try {
      const parsed: unknown = raw.trim() === '' ? {} : JSON.parse(raw);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
      doc = parsed as Record<string, unknown>;
    } catch (err) {
      throw new CliError(
        `${file} is not a JSON object (${(err as Error).message}); it was left as it is`,
        `add the entry to its "${key}" by hand: "${ENTRY}": ${JSON.stringify(entry)} (ll-loop mcp install --print shows it)`,
      );
    }
  }
  const servers = doc[key];
  if (servers !== undefined && (typeof servers !== 'object' || servers === null || Array.isArray(servers)))
    throw new CliError(
      `${file}: "${key}" is not an object; it was left as it is`,
      `make "${key}" an object, then install again`,
    );
  return `${JSON.stringify({ ...doc, [key]: { ...(servers as object | undefined), [ENTRY]: entry } }, null, 2)}\n`;
}

const tomlString = (s: string) => JSON.stringify(s);

/** Codex's TOML with the `[mcp_servers.ll-loop]` table (and its sub-tables) replaced, the rest as it was. */
function codexText(file: string, table: string): string {
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const kept: string[] = [];
  let ours = false;
  for (const line of old.split('\n')) {
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line);
    if (header) ours = /^mcp_servers\.("ll-loop"|ll-loop)(\.|$)/.test(header[1]!);
    if (!ours) kept.push(line);
  }
  const rest = kept.join('\n').replace(/\n+$/, '');
  return `${rest === '' ? '' : `${rest}\n\n`}${table}`;
}

/** What installing for `client` writes: the file and its new text. */
export function installPlan(
  client: string,
  opts: { cwd: string; readOnly: boolean; env?: NodeJS.ProcessEnv },
): InstallPlan {
  if (!(MCP_CLIENTS as readonly string[]).includes(client))
    throw new UsageError(`--client "${client}" is not a client ll-loop knows`, `use one of: ${MCP_CLIENTS.join(', ')}`);
  const env = opts.env ?? process.env;
  const c = client as McpClient;
  const { command, args } = launchCommand(opts.readOnly, env);
  const file = fileOf(c, opts.cwd, env);
  if (c === 'codex') {
    const table = `[mcp_servers.${ENTRY}]\ncommand = ${tomlString(command)}\nargs = [${args.map(tomlString).join(', ')}]\ncwd = ${tomlString(opts.cwd)}\n`;
    return { client: c, file, text: () => codexText(file, table), entry: table };
  }
  const entry = c === 'claude-code' || c === 'vscode' ? { type: 'stdio', command, args } : { command, args };
  const key = c === 'vscode' ? 'servers' : 'mcpServers';
  return {
    client: c,
    file,
    text: () => jsonText(file, key, entry),
    entry: `"${ENTRY}": ${JSON.stringify(entry, null, 2)}`,
  };
}

/** Write the plan's file (its directory made when missing). */
export function writePlan(plan: InstallPlan): void {
  const text = plan.text();
  mkdirSync(dirname(plan.file), { recursive: true });
  writeFileSync(plan.file, text);
}
