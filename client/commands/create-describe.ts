/**
 * `ll-loop create --describe "TEXT"`: an LLM drafts the loop (seed 001's `/ll:create-loop`,
 * seed 004's "FSMs writing FSMs"). The draft is validated and simulated, and asked for again with
 * the exact problems at most three times in all (client/create/describe-draft.ts); a valid draft
 * is shown as `ll-loop show` shows a loop and saved on confirmation, or at once with `--yes`.
 *
 * Invariants: an invalid draft is never saved (the file is written through `saveLoop`, which
 * loads the same bytes first); everything that can be refused without the LLM (flags, a name
 * taken, a missing key, no way to confirm) is refused before the first ask, so nothing is spent
 * on a draft that could not be saved; the cost is printed however drafting ends.
 */
import { relative } from 'node:path';
import { confirm } from '@inquirer/prompts';
import { EXIT } from '../../errors/exit-codes.js';
import { loopFilePath } from '../create/answers.js';
import { draftDescribed, type DraftRequest } from '../create/describe-run.js';
import { saveLoop } from '../create/save.js';
import { renderShow } from '../show/render.js';
import { createStyle } from '../../reporters/style.js';

/** `create --describe`'s options: the drafting's (describe-run.ts), and how to show and confirm. */
export interface DescribeOptions extends Omit<DraftRequest, 'confirmable' | 'note'> {
  yes: boolean;
  /** A terminal to confirm the save on. */
  interactive: boolean;
  colour: boolean;
  width: number;
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Asks before saving; Ctrl-C or a closed terminal (inquirer's ExitPromptError) is a no. */
async function confirmSave(shown: string): Promise<boolean> {
  try {
    return await confirm({ message: `Save to ${shown}?`, default: true });
  } catch (e) {
    if (e instanceof Error && (e.name === 'ExitPromptError' || e.name === 'AbortPromptError')) return false;
    throw e;
  }
}

export async function describeCommand(o: DescribeOptions): Promise<number> {
  const { yaml, name, definition } = await draftDescribed({
    ...o,
    confirmable: o.yes || o.dryRun || o.interactive,
    note: o.err,
  });
  const shown = relative(o.cwd, loopFilePath(o.cwd, name));
  if (o.dryRun) {
    o.out(yaml);
    return EXIT.ok;
  }
  o.out(
    renderShow(
      { definition, file: `${shown} (draft, not saved yet)`, target: { arg: name, builtin: false } },
      { style: createStyle(o.colour), width: Math.max(60, o.width) },
    ),
  );
  if (!o.yes && !(await confirmSave(shown))) {
    o.out('Nothing was written.\n');
    return EXIT.ok;
  }
  const file = saveLoop(yaml, o.cwd, name, o.force);
  o.out(`✓ Wrote ${relative(o.cwd, file)}\nRun it with: ll-loop run ${name}\n`);
  return EXIT.ok;
}
