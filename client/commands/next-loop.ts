/**
 * `ll-loop next-loop [-n|--count N] [--exclude NAME]… [--json] [--execute]`: the loops of this
 * project worth running next, from its past runs in Temporal (little-loops' `next-loop`, which
 * read `.loops/.history/`). Each loop with finished runs is scored: half how often it ran (log
 * scale, 50 runs count as all), three tenths how recently (halved every 7 days), a fifth how often
 * it succeeded. Sub-loops are not counted (their parent's run is), nor loops that no longer
 * exist. `--execute` runs the best one, as `ll-loop run <loop>` would.
 */
import { bool, list, str, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { resolveLoopFile } from '../../loader/load.js';
import { positiveInt } from './argument-errors.js';

/** A finished run as next-loop weighs it. */
export interface PastRun {
  loop: string;
  succeeded: boolean;
  started: Date;
}

/** One suggestion (`--json` prints these). */
export interface Suggestion {
  loop: string;
  input: string | null;
  context: Record<string, string>;
  score: number;
  rationale: string;
  command: string;
}

const HALF_LIFE_DAYS = 7;
const FULL_FREQUENCY_RUNS = 50;
const DAY_MS = 86_400_000;

function agoText(days: number): string {
  if (days < 1) return 'last run today';
  if (days < 2) return 'last run yesterday';
  return `last run ${Math.floor(days)}d ago`;
}

/** The loops of `runs` ranked best first (ties by name), `exclude` left out. */
export function rankLoops(runs: readonly PastRun[], now: Date, exclude: ReadonlySet<string> = new Set()): Suggestion[] {
  const byLoop = new Map<string, PastRun[]>();
  for (const run of runs) if (!exclude.has(run.loop)) byLoop.set(run.loop, [...(byLoop.get(run.loop) ?? []), run]);
  const out: Suggestion[] = [];
  for (const [loop, own] of byLoop) {
    const count = own.length;
    const successRate = own.filter((r) => r.succeeded).length / count;
    const last = Math.max(...own.map((r) => r.started.getTime()));
    const days = Math.max(0, (now.getTime() - last) / DAY_MS);
    const recency = Math.exp((-days * Math.LN2) / HALF_LIFE_DAYS);
    const frequency = Math.log1p(count) / Math.log1p(FULL_FREQUENCY_RUNS);
    const score = 0.5 * frequency + 0.3 * recency + 0.2 * successRate;
    out.push({
      loop,
      input: null,
      context: {},
      score: Math.round(score * 10_000) / 10_000,
      rationale: `${count} run${count === 1 ? '' : 's'}; ${agoText(days)}; ${Math.floor(successRate * 100)}% success`,
      command: `ll-loop run ${loop}`,
    });
  }
  return out.sort((a, b) => b.score - a.score || a.loop.localeCompare(b.loop));
}

/** The finished top-level runs of the project at `cwd`, from Temporal. */
async function pastRuns(cwd: string): Promise<PastRun[]> {
  const [{ listRuns, projectScope }, { withSession }] = await Promise.all([
    import('../../runs/find/find-runs.js'),
    import('../../temporal/session.js'),
  ]);
  const runs = await withSession(cwd, ({ client }) => listRuns(client, { project: projectScope(cwd), limit: 1000 }));
  return runs
    .filter((r) => !r.open && r.parent === undefined)
    .map((r) => ({
      loop: r.loop,
      // The loop's own outcome where the run recorded one, else how its workflow closed.
      succeeded: r.loopStatus !== undefined ? r.loopStatus === 'succeeded' : r.status === 'COMPLETED',
      started: r.startTime,
    }));
}

/** Whether `loop` can still be run from `cwd`. */
function exists(loop: string, cwd: string): boolean {
  try {
    resolveLoopFile(loop, cwd);
    return true;
  } catch {
    return false;
  }
}

/** `ll-loop next-loop` in the command table. */
export const nextLoopSpec: CommandSpec = {
  usage:
    "next-loop [-n|--count N] [--exclude NAME]… [--json] [--execute]   the loops worth running next, from this project's past runs",
  flags: {
    count: { type: 'string', short: 'n' },
    exclude: { type: 'string', multiple: true },
    json: { type: 'boolean' },
    execute: { type: 'boolean' },
  },
  async run(ctx) {
    if (ctx.positionals.length > 0)
      throw new UsageError(`unexpected arguments: ${ctx.positionals.join(' ')}`, 'll-loop next-loop [--count N]');
    const count = positiveInt(str(ctx, 'count'), '--count') ?? 1;
    const json = bool(ctx, 'json');
    if (json && bool(ctx, 'execute'))
      throw new UsageError('--json and --execute contradict each other', 'use one of them');
    const runs = (await pastRuns(ctx.cwd)).filter((r) => exists(r.loop, ctx.cwd));
    const ranked = rankLoops(runs, new Date(), new Set(list(ctx, 'exclude'))).slice(0, count);
    if (json) ctx.out(`${JSON.stringify(ranked, null, 2)}\n`);
    if (ranked.length === 0) {
      if (!json)
        ctx.out(
          runs.length
            ? 'no loops left after --exclude\n'
            : 'no finished runs in this project yet: run some loops first\n',
        );
      // Nothing to suggest is exit 1, as in little-loops (a script can tell it from a suggestion).
      return EXIT.usage;
    }
    if (json) return EXIT.ok;
    ctx.out(`Next loop ${ranked.length === 1 ? 'suggestion' : 'suggestions'}:\n\n`);
    ranked.forEach((s, i) =>
      ctx.out(`  #${i + 1}  ${s.loop}  score=${s.score.toFixed(3)}\n       ${s.rationale}\n       $ ${s.command}\n\n`),
    );
    if (!bool(ctx, 'execute')) return EXIT.ok;
    const [{ runCommand }, { runOptionsOf }, { runsService }] = await Promise.all([
      import('../../runs/start/run-loop.js'),
      import('./run-flags.js'),
      import('../../runs/service/runs-service.js'),
    ]);
    ctx.out(`running: ${ranked[0]!.command}\n`);
    return runCommand({ ...runOptionsOf({ ...ctx, positionals: [ranked[0]!.loop], values: {} }), runs: runsService() });
  },
};
