/**
 * The `ll-loop` command line: one argument parser, a command table, and one error policy
 * (expected errors print `error:`/`fix:` and exit with their code; nothing prints a stack trace
 * unless LL_DEBUG is set).
 */
import { parseArgs } from 'node:util';
import { CliError, toCliError, UsageError } from './errors.js';
import { TemporalConfigError, TemporalUnavailableError } from './temporal/connection.js';
import { DevServerStartError } from './temporal/dev-server.js';
import { TemporalCliNotFoundError } from './temporal/temporal-cli.js';
import { EXIT } from './exit-codes.js';
import { COMMANDS } from './commands/index.js';

function help(): string {
  const lines = Object.values(COMMANDS).map((c) => `  ll-loop ${c.usage}`);
  return `ll-loop — durable automation loops (finite state machines in YAML) on Temporal

Usage:
${lines.join('\n')}
  ll-loop <name> [run options]    same as ll-loop run <name>
  ll-loop help [command]

Environment: TEMPORAL_ADDRESS (use that cluster instead of the embedded dev server),
TEMPORAL_NAMESPACE, LL_TEMPORAL_CLI, LL_HOST_CLI. Docs: docs/loop-format.md, docs/cli.md.
`;
}

const HELP_FLAGS = new Set(['--help', '-h']);

/** One command's usage line, with where its full description lives. */
function commandHelp(name: string): string {
  return `Usage:\n  ll-loop ${COMMANDS[name]!.usage}\n\nAll commands: ll-loop help. Details: docs/cli.md.\n`;
}

export async function main(argv: string[], cwd = process.cwd()): Promise<number> {
  const [first, ...rest] = argv;
  const isCommand = (name: string | undefined): name is string => name !== undefined && Object.hasOwn(COMMANDS, name);
  if (first === 'help' && isCommand(rest[0])) {
    process.stdout.write(commandHelp(rest[0]));
    return EXIT.ok;
  }
  if (first === undefined || first === 'help' || HELP_FLAGS.has(first)) {
    process.stdout.write(help());
    return EXIT.ok;
  }
  // `ll-loop <command> --help` before `--`: the command's usage, never a run of the command.
  const beforeDashes = rest.indexOf('--') === -1 ? rest : rest.slice(0, rest.indexOf('--'));
  if (isCommand(first) && beforeDashes.some((a) => HELP_FLAGS.has(a))) {
    process.stdout.write(commandHelp(first));
    return EXIT.ok;
  }
  const known = isCommand(first);
  const spec = known ? COMMANDS[first]! : COMMANDS.run!;
  const args = known ? rest : argv;
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: spec.flags });
  } catch (err) {
    throw new UsageError((err as Error).message, `see ll-loop help`);
  }
  return spec.run({
    cwd,
    positionals: parsed.positionals,
    values: parsed.values as Record<string, string | boolean | string[] | boolean[] | undefined>,
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
  });
}

/** The bin's entry: run, print expected errors plainly, exit with the right code. */
export async function runCli(argv: string[]): Promise<void> {
  // A reader that went away (`ll-loop list | head`) is not an error of the command: what it
  // still prints is dropped, and a running loop carries on rather than losing its worker.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
    });
  }
  let code: number;
  try {
    code = await main(argv);
  } catch (caught) {
    const err = toCliError(caught);
    if (err instanceof TemporalUnavailableError || err instanceof DevServerStartError || err instanceof TemporalCliNotFoundError || err instanceof TemporalConfigError) {
      process.stderr.write(`error: ${err.message}\n`);
      code = EXIT.infrastructure;
    } else if (err instanceof CliError) {
      process.stderr.write(`error: ${err.message}\n${err.fix ? `fix: ${err.fix}\n` : ''}`);
      code = err.exitCode;
    } else {
      const e = err as Error;
      process.stderr.write(`error: ${e?.message ?? String(err)}\n`);
      if (process.env.LL_DEBUG) process.stderr.write(`${e?.stack ?? ''}\n`);
      code = EXIT.runError;
    }
  }
  process.exitCode = code;
  // The SDK's native threads can keep the event loop alive after everything is closed.
  setTimeout(() => process.exit(code), 100).unref();
}
