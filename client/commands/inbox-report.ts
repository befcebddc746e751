/**
 * The inbox as `ll-loop inbox` and `ll-loop list --waiting` print it (inbox.ts, list.ts): every run
 * waiting for a person, newest wait first, as a table with the command that answers each, or JSON.
 * A helper of both commands.
 */
import { oneLine } from '../../fsm/format.js';
import { EXIT } from '../../errors/exit-codes.js';
import type { WaitingRun } from '../../runs/human/find-waiting.js';

export interface InboxOptions {
  cwd: string;
  json: boolean;
  allProjects: boolean;
  out: (text: string) => void;
}

/** Print the inbox; returns the exit code. */
export async function printInbox(opts: InboxOptions): Promise<number> {
  const [waiting, { table, localTime }, { safeText }] = await Promise.all([
    waitingRuns(opts),
    import('../../reporters/table.js'),
    import('../../reporters/safe-text.js'),
  ]);
  if (opts.json) {
    opts.out(`${JSON.stringify(waiting, null, 2)}\n`);
    return EXIT.ok;
  }
  if (waiting.length === 0) {
    opts.out('no run is waiting for an answer\n');
    return EXIT.ok;
  }
  const rows = [
    ['RUN', 'STATE', 'WAITING SINCE', 'DEADLINE', 'QUESTION'],
    ...waiting.map((w) => [
      w.run,
      w.state,
      localTime(new Date(w.since)),
      w.deadline === undefined ? '-' : localTime(new Date(w.deadline)),
      safeText(oneLine(w.prompt, 60)),
    ]),
  ];
  opts.out(table(rows));
  opts.out(`\nanswer with:\n${waiting.map((w) => `  ${w.answer}`).join('\n')}\n`);
  return EXIT.ok;
}

/**
 * The inbox from the checkout's worker when it can answer (no Temporal client loaded here), else
 * listed by this command on a session of its own.
 */
async function waitingRuns(opts: InboxOptions): Promise<WaitingRun[]> {
  const [{ runsService }, { projectScope }] = await Promise.all([
    import('../../runs/service/runs-service.js'),
    import('../../runs/find/project-scope.js'),
  ]);
  const here = projectScope(opts.cwd);
  return runsService().inbox({ cwd: opts.cwd, project: opts.allProjects ? undefined : here, here });
}
