/**
 * The `ll-loop` command line: one argument parser, a command table, and one error policy
 * (expected errors print `error:`/`fix:` and exit with their code; nothing prints a stack trace
 * unless LL_DEBUG is set).
 */
import { parseArgs } from 'node:util';
import { CliError, UsageError } from './errors.js';
import { TemporalConfigError, TemporalUnavailableError } from './connection.js';
import { DevServerStartError } from './dev-server.js';
import { TemporalCliNotFoundError } from './temporal-cli.js';
import { EXIT } from './exit-codes.js';
import { runCommand } from './commands/run.js';
import { validateCommand } from './commands/validate.js';
import { serverCommand } from './commands/server.js';
import { loopJsonSchema } from '../fsm/schema.js';

const HELP = `ll-loop — durable automation loops (finite state machines in YAML) on Temporal

Usage:
  ll-loop run <name|path> [options]    run a loop (.loops/<name>.yaml) to its end
  ll-loop <name> [options]             same as run
  ll-loop validate <name|path> [--json]
  ll-loop server start|status|stop     the embedded Temporal dev server (.loops/.temporal/)
  ll-loop schema                       print the loop format's JSON Schema (for editors)
  ll-loop help

Run options:
  --max-iterations N     override max_iterations
  --context KEY=VALUE    set a context value (repeatable)
  --dry-run              print the execution plan; run nothing
  --no-llm               disable LLM evaluation
  --llm-model MODEL      model for LLM evaluation
  --json                 print the result as JSON

Environment: TEMPORAL_ADDRESS (use that cluster instead of the embedded dev server),
TEMPORAL_NAMESPACE, LL_TEMPORAL_CLI, LL_HOST_CLI. Docs: docs/loop-format.md, docs/cli.md.
`;

const COMMANDS = new Set(['run', 'validate', 'server', 'schema', 'help']);

function intOption(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${flag} must be a positive integer, got "${value}"`);
  return n;
}

export async function main(argv: string[], cwd = process.cwd()): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === 'help' || first === '--help' || first === '-h') {
    process.stdout.write(HELP);
    return EXIT.ok;
  }
  const command = COMMANDS.has(first) ? first : 'run';
  const args = COMMANDS.has(first) ? rest : argv;
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        'max-iterations': { type: 'string' },
        context: { type: 'string', multiple: true, short: 'c' },
        'dry-run': { type: 'boolean' },
        'no-llm': { type: 'boolean' },
        'llm-model': { type: 'string' },
        json: { type: 'boolean' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message, 'see ll-loop help');
  }
  const { values, positionals } = parsed;
  if (command === 'schema') {
    process.stdout.write(`${JSON.stringify({ title: 'll-loop loop definition', ...loopJsonSchema() }, null, 2)}\n`);
    return EXIT.ok;
  }
  if (command === 'server') return serverCommand(positionals[0], cwd, values.json === true, (t) => process.stdout.write(t));
  const target = positionals[0];
  if (target === undefined) throw new UsageError(`${command} needs a loop name or path`, `ll-loop ${command} <name>`);
  if (positionals.length > 1) throw new UsageError(`unexpected arguments: ${positionals.slice(1).join(' ')}`, 'quote values that contain spaces');
  if (command === 'validate') return validateCommand({ cwd, target, json: values.json === true });
  const maxIterations = intOption(values['max-iterations'], '--max-iterations');
  return runCommand({
    cwd,
    target,
    context: values.context ?? [],
    dryRun: values['dry-run'] === true,
    noLlm: values['no-llm'] === true,
    json: values.json === true,
    ...(maxIterations === undefined ? {} : { maxIterations }),
    ...(values['llm-model'] === undefined ? {} : { llmModel: values['llm-model'] }),
  });
}

/** The bin's entry: run, print expected errors plainly, exit with the right code. */
export async function runCli(argv: string[]): Promise<void> {
  let code: number;
  try {
    code = await main(argv);
  } catch (err) {
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
