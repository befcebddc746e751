/**
 * `ll-loop answer <run|loop> yes|no|--edit TEXT|--choice X|--text TEXT|--json '{…}' [--json-output]`:
 * answer the human state a run waits in (runs/human/answer-run.ts). Refused answers change
 * nothing: an error line says why, with the fix (exit 1).
 */
import type { HumanReply } from '../../fsm/human.js';
import { bool, str, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';

const USAGE = "ll-loop answer <run|loop> yes | no | --edit TEXT | --choice X | --text TEXT | --json '{…}'";

/** The reply the arguments give, or a usage error. */
export function replyOf(
  words: string[],
  flags: { edit?: string; choice?: string; text?: string; json?: string },
): HumanReply {
  const given = [
    ...words.map((w) => ({ w })),
    ...(['edit', 'choice', 'text', 'json'] as const).filter((k) => flags[k] !== undefined).map((k) => ({ k })),
  ];
  if (given.length === 0) throw new UsageError('answer needs the answer', USAGE);
  if (given.length > 1) throw new UsageError('answer takes one answer', USAGE);
  if (words.length === 1) {
    const word = words[0]!.toLowerCase();
    if (word === 'yes' || word === 'y') return { kind: 'yes' };
    if (word === 'no' || word === 'n') return { kind: 'no' };
    throw new UsageError(
      `"${words[0]}" is not an answer: say yes or no, or use --choice, --text, --edit or --json`,
      USAGE,
    );
  }
  if (flags.edit !== undefined) return { kind: 'edit', text: flags.edit };
  if (flags.choice !== undefined) return { kind: 'choice', option: flags.choice };
  if (flags.text !== undefined) return { kind: 'text', text: flags.text };
  try {
    return { kind: 'json', value: JSON.parse(flags.json!) as unknown };
  } catch (err) {
    throw new UsageError(
      `--json is not JSON: ${err instanceof Error ? err.message : String(err)}`,
      `quote it for the shell: --json '{"key": "value"}'`,
    );
  }
}

export const answerSpec: CommandSpec = {
  usage: "answer <run|loop> yes|no|--edit TEXT|--choice X|--text TEXT|--json '{…}'   answer a run waiting for a person",
  flags: {
    edit: { type: 'string' },
    choice: { type: 'string' },
    text: { type: 'string' },
    json: { type: 'string' },
    'json-output': { type: 'boolean' },
  },
  async run(ctx) {
    const [target, ...words] = ctx.positionals;
    if (target === undefined) throw new UsageError('answer needs a run id or loop name', USAGE);
    const flag = (name: string) => str(ctx, name);
    const reply = replyOf(words, {
      ...(flag('edit') === undefined ? {} : { edit: flag('edit')! }),
      ...(flag('choice') === undefined ? {} : { choice: flag('choice')! }),
      ...(flag('text') === undefined ? {} : { text: flag('text')! }),
      ...(flag('json') === undefined ? {} : { json: flag('json')! }),
    });
    const [{ runsService }, { projectScope }, { reviveRunCheckout }] = await Promise.all([
      import('../../runs/service/runs-service.js'),
      import('../../runs/find/find-runs.js'),
      import('../../runs/workers/revive-run-checkout.js'),
    ]);
    // A run of another project of this host: its checkout's worker is brought back if it is gone.
    const report = await runsService().answer({
      cwd: ctx.cwd,
      target,
      reply,
      project: projectScope(ctx.cwd),
      onFound: (run) => reviveRunCheckout(run, ctx.cwd),
    });
    if (bool(ctx, 'json-output')) ctx.out(`${JSON.stringify(report, null, 2)}\n`);
    else ctx.out(`answered ${report.run} in state ${report.state}: ${report.verdict} (by ${report.by})\n`);
    return EXIT.ok;
  },
};
