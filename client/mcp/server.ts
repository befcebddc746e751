/**
 * The `ll-loop mcp` server of one project: an MCP server (the official SDK's) whose tools read
 * and drive that project's loops and runs (loop-tools.ts, run-tools.ts, control-tools.ts) and
 * whose resources are its runs (run-resources.ts). Each tool calls a typed function of the
 * loader or of the runs service, never a command. One server per client connection (stdio: one;
 * HTTP: one per session).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { buildInfo } from '../../host/build-info.js';
import type { RunsService } from '../../runs/service/interface.js';
import { runsService } from '../../runs/service/runs-service.js';
import { registerControlTools } from './control-tools.js';
import { registerCreateTool } from './create-tool.js';
import { registerLoopTools } from './loop-tools.js';
import { registerRunResources } from './run-resources.js';
import { registerRunTools } from './run-tools.js';

export interface McpOptions {
  /** The project root: loop names and runs are this project's. */
  cwd: string;
  /** Serve only the tools that read. */
  readOnly: boolean;
  /** The environment of `ll-loop mcp` as it was invoked: a started run's actions see it. */
  env: NodeJS.ProcessEnv;
  /** The runs service (default: the one every command uses). */
  runs?: RunsService;
}

const INSTRUCTIONS =
  'll-loop runs automation loops (finite state machines in YAML) as durable Temporal workflows. ' +
  'list_loops shows what can run; start_run starts one in the background and returns its run id at once; ' +
  'run_status and run_logs follow it (or read and subscribe to the resource ll-loop://runs/<id>); ' +
  'inbox lists runs waiting for a person, answer answers them. A tool error says what is wrong and its fix.';

/** A server for one client connection, and the stop of its pollers. */
export function createMcpServer(opts: McpOptions): { server: McpServer; stop: () => void } {
  const server = new McpServer({ name: 'll-loop', version: buildInfo().version }, { instructions: INSTRUCTIONS });
  const runs = opts.runs ?? runsService(opts.env);
  const host = { server, readOnly: opts.readOnly };
  registerLoopTools(host, opts.cwd);
  registerRunTools(host, opts.cwd, runs);
  registerControlTools(host, opts.cwd, runs, opts.env);
  registerCreateTool(host, opts.cwd, opts.env);
  const stop = registerRunResources(server, opts.cwd, runs, opts.env);
  return { server, stop };
}
