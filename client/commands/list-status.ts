/**
 * `ll-loop list --status S [--json]`: this project's runs whose outcome is `S` (the `LoopStatus`
 * search attribute, fsm/run/outcome.ts), newest first. little-loops' status words are taken too:
 * `interrupted` is `stopped`, `awaiting_continuation` is `handoff`, `completed` is `succeeded`.
 * `--status running` is `list --running`. Sub-loops are left out, as in `list --failed`.
 */
import { LOOP_OUTCOMES } from '../../fsm/run/outcome.js';
import { CliError, UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { didYouMean } from '../../fsm/suggest.js';
import { localTime, table } from '../../reporters/table.js';

/** little-loops' run statuses, as our outcomes. */
const THEIR_WORDS: Readonly<Record<string, string>> = {
  interrupted: 'stopped',
  awaiting_continuation: 'handoff',
  completed: 'succeeded',
};

/** The outcome `--status` asks for, or a usage error naming the value and the words it takes. */
export function statusWanted(value: string): string {
  const status = THEIR_WORDS[value] ?? value;
  if ((LOOP_OUTCOMES as readonly string[]).includes(status)) return status;
  const words = [...LOOP_OUTCOMES, ...Object.keys(THEIR_WORDS)];
  throw new UsageError(
    `--status "${value}" is no run status${didYouMean(value, words)}`,
    `give one of: ${LOOP_OUTCOMES.join(', ')} (little-loops' ${Object.keys(THEIR_WORDS).join(', ')} are taken too)`,
  );
}

/** One run as `list --status` shows it. */
export interface StatusListing {
  id: string;
  loop: string;
  outcome: string;
  final_state: string | null;
  started_at: string;
  closed_at: string | null;
}

/** Print this project's closed runs whose outcome is `status`. Returns the exit code. */
export async function printStatus(opts: {
  cwd: string;
  status: string;
  json: boolean;
  out: (text: string) => void;
}): Promise<number> {
  const [{ listRuns, projectScope }, { withSession }] = await Promise.all([
    import('../../runs/find/find-runs.js'),
    import('../../temporal/session.js'),
  ]);
  const runs = await withSession(opts.cwd, ({ client }) =>
    listRuns(client, { where: `LoopStatus = '${opts.status}'`, project: projectScope(opts.cwd), limit: 200 }),
  ).catch((err: unknown) => {
    // A server without ll-loop's search attributes rejects the query naming LoopStatus.
    if (!/LoopStatus/.test((err as Error).message ?? '')) throw err;
    throw new CliError(
      "--status needs the server's LoopStatus search attribute, which this server lacks",
      'run ll-loop cluster setup (or use list --running / list --failed)',
      EXIT.infrastructure,
    );
  });
  const rows: StatusListing[] = runs
    .filter((r) => r.parent === undefined)
    .map((r) => ({
      id: r.id,
      loop: r.loop,
      outcome: r.loopStatus ?? opts.status,
      final_state: r.loopState ?? null,
      started_at: r.startTime.toISOString(),
      closed_at: r.closeTime?.toISOString() ?? null,
    }));
  if (opts.json) {
    opts.out(`${JSON.stringify(rows, null, 2)}\n`);
    return EXIT.ok;
  }
  if (rows.length === 0) {
    opts.out(`no runs of this project ended ${opts.status}\n`);
    return EXIT.ok;
  }
  opts.out(
    table([
      ['RUN ID', 'LOOP', 'OUTCOME', 'STATE', 'STARTED', 'CLOSED'],
      ...rows.map((r) => [
        r.id,
        r.loop,
        r.outcome,
        r.final_state ?? '-',
        localTime(new Date(r.started_at)),
        r.closed_at ? localTime(new Date(r.closed_at)) : '-',
      ]),
    ]),
  );
  return EXIT.ok;
}
