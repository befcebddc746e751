/**
 * The end of a `run --worktree` followed to its end: the run removes its worktree and branch
 * unless they hold work, and when it keeps them the user is told where the work is and how to
 * merge or drop it — after the result in the progress display, as `worktree` in the `--json`
 * result (`{ kept: false }` when it was removed). The result is held until git has been asked, so
 * the JSON stays one object.
 */
import type { ExecutionResult } from '../../fsm/types.js';
import type { Reporter, RunInfo } from '../../reporters/reporter.js';
import type { KeptWorktree } from '../../worker/portable.js';

type Outcome = KeptWorktree | { kept: false; branch: string };

/** The note about a kept worktree, for people. */
function keptWorktreeText(kept: KeptWorktree, commit: string): string {
  const held = [
    ...(kept.commits > 0
      ? [`${kept.commits} commit${kept.commits === 1 ? '' : 's'} beyond ${commit.slice(0, 12)}`]
      : []),
    ...(kept.uncommitted.length > 0
      ? [
          `uncommitted: ${kept.uncommitted.slice(0, 5).join(', ')}${kept.uncommitted.length > 5 ? ` and ${kept.uncommitted.length - 5} more` : ''}`,
        ]
      : []),
  ];
  const why = held.length > 0 ? `it holds the run's work (${held.join('; ')})` : 'the run ended before it removed it';
  const lines = [
    `Worktree kept: ${why}.`,
    ...(kept.path ? [`  path:    ${kept.path}`] : []),
    `  branch:  ${kept.branch}`,
    ...kept.merge.map((cmd, i) => `  ${i === 0 ? 'merge:' : '      '}   ${cmd}`),
    `  drop:    ${kept.drop.join(' && ')}`,
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * A reporter that holds the run's result until {@link flush} has looked for the kept worktree
 * (`look`), then shows both: the human note after the result, or `worktree` in the JSON.
 */
export function reportKeptWorktree(
  shown: Reporter,
  o: { json: boolean; commit: string; out: (text: string) => void; look: () => Promise<Outcome | undefined> },
): { reporter: Reporter; flush: () => Promise<void> } {
  let held: { result: ExecutionResult; info: RunInfo } | undefined;
  const reporter: Reporter = {
    ...(shown.onStart ? { onStart: (info: RunInfo) => shown.onStart!(info) } : {}),
    onEvent: (event) => shown.onEvent(event),
    onResult: (result, info) => {
      held = { result, info };
    },
  };
  const flush = async (): Promise<void> => {
    const outcome = await o.look().catch(() => undefined);
    if (held && o.json && outcome) {
      shown.onResult({ ...held.result, worktree: outcome } as ExecutionResult, held.info);
      return;
    }
    if (held) shown.onResult(held.result, held.info);
    if (!o.json && outcome?.kept) o.out(keptWorktreeText(outcome, o.commit));
  };
  return { reporter, flush };
}
