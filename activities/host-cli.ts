/**
 * The host CLI: the agent program that runs prompt states and LLM evaluations (Claude Code by
 * default). Configured on the worker, never in a loop file:
 * - `LL_HOST_CLI`: binary name or path (default `claude`);
 * - `LL_HOST_ARGS`: extra arguments put before ours, split on whitespace (no quoting).
 */

/** The configured host CLI. */
export interface HostCli {
  binary: string;
  extraArgs: string[];
}

/** Reads the host CLI configuration from `env`. */
export function hostCli(env: NodeJS.ProcessEnv = process.env): HostCli {
  const binary = env['LL_HOST_CLI']?.trim() || 'claude';
  const extra = env['LL_HOST_ARGS']?.trim();
  return { binary, extraArgs: extra ? extra.split(/\s+/) : [] };
}

/** Options of a prompt state run (the prompt itself goes to stdin: see {@link promptArgs}). */
export interface PromptArgsOptions {
  agent?: string;
  tools?: string[];
  model?: string;
  /** Continue this agent session (`--resume <id>`): a `session_mode: continue` state. */
  resume?: string;
}

/**
 * Arguments for running a prompt state (without the extra args; see {@link hostArgs}). Prompt
 * states act unattended, so permissions are skipped: the loop author chose to run an agent here.
 * The answer is streamed as JSON lines (`--output-format stream-json --verbose`): the agent's work
 * shows in the live output as it goes (stream-json-live.ts), any output restarts a state's
 * `idle_timeout`, and the last line, the `json` format's envelope, is the action's result.
 *
 * The prompt is NOT an argument: `claude -p` without one reads it from stdin, and the caller writes
 * it there. In argv it would be readable by every local user (`ps`, /proc/<pid>/cmdline) with the
 * `${env.*}` secrets it may hold, and bound by the 128 KiB limit of one argument (E2BIG).
 */
export function promptArgs(o: PromptArgsOptions): string[] {
  return [
    '--dangerously-skip-permissions',
    // The last line is the envelope with its text, cost and tokens (activities/host-envelope.ts).
    '--output-format',
    'stream-json',
    '--verbose',
    ...(o.resume ? ['--resume', o.resume] : []),
    ...(o.model ? ['--model', o.model] : []),
    ...(o.agent ? ['--agent', o.agent] : []),
    ...(o.tools ? ['--tools', o.tools.join(',')] : []),
    '-p',
  ];
}

/** Options of an LLM evaluation (the prompt goes to stdin, as for {@link promptArgs}). */
export interface LlmJsonArgsOptions {
  schema: Record<string, unknown>;
  model?: string;
}

/**
 * Arguments for a structured LLM judgement: JSON envelope on stdout, output constrained to
 * `schema`, no saved session. No permission bypass: a judge needs no tools.
 */
export function llmJsonArgs(o: LlmJsonArgsOptions): string[] {
  return [
    '-p',
    '--output-format',
    'json',
    '--json-schema',
    JSON.stringify(o.schema),
    '--no-session-persistence',
    ...(o.model ? ['--model', o.model] : []),
  ];
}

/** The full argument list: the configured extra args first, then `args`. */
export function hostArgs(cli: HostCli, args: string[]): string[] {
  return cli.extraArgs.length === 0 ? args : [...cli.extraArgs, ...args];
}

/** The message for a host CLI that is not installed: the default one, or the one LL_HOST_CLI names. */
export function hostNotFoundMessage(binary: string): string {
  if (binary === 'claude') return `host CLI 'claude' not found on PATH; install Claude Code or set LL_HOST_CLI`;
  return binary.includes('/')
    ? `host CLI '${binary}' (LL_HOST_CLI) does not exist; set LL_HOST_CLI to the agent's path or a command on PATH`
    : `host CLI '${binary}' (LL_HOST_CLI) not found on PATH; install it, or set LL_HOST_CLI to the agent's path`;
}
