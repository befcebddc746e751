/**
 * The `ll-loop` command line: one argument parser, a command table, and one error policy
 * (expected errors print `error:`/`fix:` and exit with their code; nothing prints a stack trace
 * unless LL_DEBUG is set).
 */
import { parseArgs } from 'node:util';
import { CliError, toCliError, UsageError } from '../errors/errors.js';
import type { OutputSink } from './command-table.js';
import type { EarlyStart } from '../runs/start/early-start.js';
import { EXIT } from '../errors/exit-codes.js';
import { beforeCommand, COMMANDS } from './commands/index.js';
import { usageLines, usageOf } from './commands/usage-index.js';
import { argumentError, negativeValuesJoined, unknownCommandError } from './commands/argument-errors.js';
import { projectInvocation } from './commands/project-root.js';
import { aliasesLine, aliasesOf, commandOf } from './commands/aliases.js';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

async function help(): Promise<string> {
  const lines = (await usageLines()).map(([, usage]) => `  ll-loop ${usage}`);
  return `ll-loop — durable automation loops (finite state machines in YAML) on Temporal

Usage:
${lines.join('\n')}
  ll-loop <name> [run options]    same as ll-loop run <name>
  ll-loop help [command]
  ll-loop --version

Aliases (little-loops' short names): ${aliasesLine()}

Environment: TEMPORAL_ADDRESS (use that cluster instead of the embedded dev server),
TEMPORAL_NAMESPACE, LL_TEMPORAL_CLI, LL_HOST_CLI. Docs: ${docsPath('loop-format.md')}, ${docsPath('cli.md')}.
`;
}

/**
 * Where a page of this ll-loop's docs is on disk (the package ships `docs/`): an absolute path a
 * user can open wherever ll-loop is installed, found from this file (client/ in the source,
 * dist/client/ or dist/cli/ when built).
 */
function docsPath(page: string): string {
  for (const up of ['../docs/', '../../docs/']) {
    const path = fileURLToPath(new URL(`${up}${page}`, import.meta.url));
    if (existsSync(path)) return path;
  }
  return `docs/${page} of the ll-loop package`;
}

const HELP_FLAGS = new Set(['--help', '-h']);
const VERSION_FLAGS = new Set(['--version', '-V']);

/** This ll-loop's release, from its package.json (two levels up from client/cli.{ts,js}, in dist/ three). */
function version(): string {
  for (const up of ['../package.json', '../../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'll-loop' && manifest.version) return manifest.version;
    } catch {
      // not this level
    }
  }
  return 'unknown';
}

/**
 * Whether `word` names a loop from `root` (a file, `.loops/<word>.yaml`, a built-in); if not, the
 * usage error to give when it looks like a mistyped command. The loader is loaded only here:
 * `--help` and `--version` must not pay for zod and yaml.
 */
async function notALoop(word: string, root: string): Promise<CliError | undefined> {
  const { knownLoopsText, resolveLoopFile } = await import('../loader/load.js');
  try {
    resolveLoopFile(word, root);
    return undefined;
  } catch {
    return unknownCommandError(word, Object.keys(COMMANDS), knownLoopsText(root).names);
  }
}

/** One command's usage line, with where its full description lives. */
async function commandHelp(name: string): Promise<string> {
  const aliases = aliasesOf(name);
  const also = aliases.length ? `\nAlias: ${aliases.map((a) => `ll-loop ${a}`).join(', ')}\n` : '';
  return `Usage:\n  ll-loop ${await usageOf(name)}\n${also}\nAll commands: ll-loop help. Details: ${docsPath('cli.md')}\n`;
}

/** Where {@link main} runs and writes: the bin passes the process's own, tests pass buffers. */
export interface CliIo {
  cwd: string;
  stdout: OutputSink;
  stderr: OutputSink;
  /** The start the bin asked the checkout's worker for before loading the CLI (`run` only). */
  early?: EarlyStart;
}

/** The process's working directory and standard streams. */
export function processIo(): CliIo {
  return { cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr };
}

/**
 * Run `ll-loop <argv…>` and return its exit code. The whole error policy is here: an expected
 * error prints `error:` (and `fix:`) on `stderr` and exits with its code; an unexpected one prints
 * its message (and, with LL_DEBUG, its stack) and exits 5. Never throws.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (caught) {
    return reportError(caught, io.stderr);
  }
}

/** Help, or parse the arguments of one command and run it. */
async function dispatch(argv: string[], io: CliIo): Promise<number> {
  // An alias (`r`, `st`, `s`…: client/commands/aliases.ts) is its command, here and after `help`.
  const [typed, ...given] = argv;
  const first = typed === undefined ? undefined : commandOf(typed);
  const rest = first === 'help' && given[0] !== undefined ? [commandOf(given[0]), ...given.slice(1)] : given;
  const isCommand = (name: string | undefined): name is string => name !== undefined && Object.hasOwn(COMMANDS, name);
  if (first === 'help' && isCommand(rest[0])) {
    io.stdout.write(await commandHelp(rest[0]));
    return EXIT.ok;
  }
  if (first === 'help' && rest[0] !== undefined) {
    const commands = Object.keys(COMMANDS);
    const guess = unknownCommandError(rest[0], commands, []);
    throw new UsageError(
      `unknown command "${rest[0]}"`,
      guess ? guess.fix! : `ll-loop help lists the commands: ${commands.join(', ')}`,
    );
  }
  if (first === undefined || first === 'help' || HELP_FLAGS.has(first)) {
    io.stdout.write(await help());
    return EXIT.ok;
  }
  if (VERSION_FLAGS.has(first)) {
    io.stdout.write(`ll-loop ${version()}\n`);
    return EXIT.ok;
  }
  // `ll-loop <command> --help` before `--`: the command's usage, never a run of the command.
  const beforeDashes = rest.indexOf('--') === -1 ? rest : rest.slice(0, rest.indexOf('--'));
  if (isCommand(first) && beforeDashes.some((a) => HELP_FLAGS.has(a))) {
    io.stdout.write(await commandHelp(first));
    return EXIT.ok;
  }
  const word: string = first;
  const known = Object.hasOwn(COMMANDS, word);
  const command = known ? word : 'run';
  // Only the command that runs is loaded (client/commands/index.ts).
  const spec = await COMMANDS[command]!();
  const args = known ? rest : argv;
  let parsed;
  try {
    parsed = parseArgs({ args: negativeValuesJoined(args, spec.flags), allowPositionals: true, options: spec.flags });
  } catch (err) {
    // `ll-loop --verison` is read as `ll-loop run --verison`: ll-loop's own options are candidates too.
    throw argumentError(err, command, spec.flags, known ? ['--help'] : ['--help', '--version']);
  }
  // Every command works in the project, found from the directory it was started in (like git).
  const invocation = projectInvocation(io.cwd, parsed.positionals);
  if (!known && !word.startsWith('-')) {
    const mistyped = await notALoop(invocation.positionals[0] ?? word, invocation.root);
    if (mistyped) throw mistyped;
  }
  await beforeCommand(command, invocation.root);
  return spec.run({
    cwd: invocation.root,
    invokedIn: io.cwd,
    positionals: invocation.positionals,
    values: parsed.values as Record<string, string | boolean | string[] | boolean[] | undefined>,
    out: (t) => void io.stdout.write(t),
    err: (t) => void io.stderr.write(t),
    terminal: io.stdout,
    ...(io.early && command === 'run' && known ? { early: io.early } : {}),
  });
}

/**
 * Errors of temporal/ that mean Temporal is out of reach (exit 7), told by their names:
 * importing their classes would load the Temporal SDK (~0.3 s) for every command, even `--help`.
 */
const INFRASTRUCTURE_ERRORS = new Set([
  'TemporalUnavailableError',
  'DevServerStartError',
  'TemporalCliNotFoundError',
  'TemporalConfigError',
]);

/** The error policy: what to print for `caught`, and the exit code it means. */
function reportError(caught: unknown, stderr: OutputSink): number {
  const err = toCliError(caught);
  if (err instanceof Error && INFRASTRUCTURE_ERRORS.has(err.name)) {
    stderr.write(`error: ${err.message}\n`);
    return EXIT.infrastructure;
  }
  if (err instanceof CliError) {
    stderr.write(`error: ${err.message}\n${err.fix ? `fix: ${err.fix}\n` : ''}`);
    return err.exitCode;
  }
  const e = err as Error;
  stderr.write(`error: ${e?.message ?? String(err)}\n`);
  if (process.env.LL_DEBUG) stderr.write(`${e?.stack ?? ''}\n`);
  return EXIT.runError;
}

/** The bin's entry: {@link main} on the process's streams, then exit with its code. */
export async function runCli(argv: string[], early?: EarlyStart): Promise<void> {
  // A reader that went away (`ll-loop list | head`) is not an error of the command: what it
  // still prints is dropped, and a running loop carries on rather than losing its worker.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
    });
  }
  const code = await main(argv, { ...processIo(), ...(early ? { early } : {}) });
  process.exitCode = code;
  // The SDK's native threads can keep the event loop alive after everything is closed.
  setTimeout(() => process.exit(code), 100).unref();
}
