/**
 * `ll-loop list [--category C] [--label L] [--json]`: the loops in `.loops/`.
 * `ll-loop list --builtin [--category C] [--label L] [--json]`: the built-in catalog (list-builtin.ts).
 * `ll-loop list --running [--json]`: the open runs in Temporal, each answering for itself.
 * `ll-loop list --failed [--json]`: the runs that did not succeed (list-failed.ts).
 * `ll-loop list --status S [--json]`: the runs that ended so (list-status.ts).
 * The loops listed are the public ones unless `--visibility` asks for others (list-visibility.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { bool, list, str, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { builtinLoopNames } from '../../loader/catalog.js';
import { listLoopNames, loadLoopFile, loopsDir } from '../../loader/load.js';
import { localTime, table } from '../../reporters/table.js';
import type { RunningListing } from '../../runs/find/running-listings.js';
import { runsService } from '../../runs/service/runs-service.js';
import { printBuiltins } from './list-builtin.js';
import { underParents, withProjects, type LoopListing } from './list-tables.js';
import { hiddenNote, shown, visibilityOf, visibilityWanted, type Visibility } from './list-visibility.js';

export type { RunningListing };

/** Options of {@link listCommand}; `out` receives stdout. */
export interface ListOptions {
  cwd: string;
  json: boolean;
  running?: boolean;
  /** The runs that did not succeed, instead of the loops. */
  failed?: boolean;
  /** The built-in catalog instead of `.loops/`. */
  builtin?: boolean;
  category?: string;
  labels?: string[];
  /** `--visibility`: which audience's loops (default: the public ones). */
  visibility?: Visibility;
  /** `--status S`: the runs that ended so, instead of the loops. */
  status?: string;
  /** `--running`/`--failed`: the runs of every project on the server, not only this one's. */
  allProjects?: boolean;
  out: (text: string) => void;
  /** Warnings (a loop file that cannot be read is skipped with one). Default: stderr. */
  err?: (text: string) => void;
}

/** Every loop file in `.loops/`, valid or not (an invalid one never stops the listing). */
export function loopListings(cwd: string): LoopListing[] {
  return listLoopNames(cwd).map((name) => {
    const yaml = join(loopsDir(cwd), `${name}.yaml`);
    const file = existsSync(yaml) ? yaml : join(loopsDir(cwd), `${name}.yml`);
    const loaded = loadLoopFile(file);
    const def = loaded.definition;
    if (!def) {
      const first = loaded.diagnostics.find((d) => d.severity === 'error');
      return { name, file, valid: false, labels: [], error: first?.message ?? 'invalid loop' };
    }
    return {
      name,
      file,
      valid: true,
      labels: def.labels,
      visibility: visibilityOf(def),
      ...(def.description === undefined ? {} : { description: def.description }),
      ...(def.category === undefined ? {} : { category: def.category }),
    };
  });
}

function printLoops(opts: ListOptions): number {
  const labels = opts.labels ?? [];
  const wanted = opts.visibility ?? 'public';
  const all = loopListings(opts.cwd);
  const matching = all.filter(
    (l) =>
      (opts.category === undefined || l.category === opts.category) &&
      labels.every((label) => l.labels.includes(label)),
  );
  // An invalid file has no visibility to read: it is listed (with a warning) whatever is asked.
  const loops = matching.filter((l) => !l.valid || shown(l.visibility, wanted));
  if (opts.json) {
    opts.out(`${JSON.stringify(loops, null, 2)}\n`);
    return EXIT.ok;
  }
  const filtered = opts.category !== undefined || labels.length > 0 || opts.visibility !== undefined;
  // A file that cannot be read is skipped with a warning (its name and first error), never
  // stopping the listing; `--json` keeps it as `valid: false` for scripts.
  const err = opts.err ?? ((t: string) => void process.stderr.write(t));
  for (const l of all.filter((x) => !x.valid))
    err(`warning: skipped ${l.file}: ${l.error ?? 'invalid loop'} (ll-loop validate ${l.name})\n`);
  const valid = loops.filter((l) => l.valid);
  if (valid.length === 0) {
    opts.out(filtered ? 'no loops match\n' : `no loops in ${loopsDir(opts.cwd)}\n`);
  } else {
    const rows = valid.map((l) => [
      l.name,
      l.category ?? '-',
      l.labels.join(',') || '-',
      l.description?.split('\n')[0] ?? '',
    ]);
    opts.out(table([['NAME', 'CATEGORY', 'LABELS', 'DESCRIPTION'], ...rows]));
  }
  opts.out(hiddenNote(matching.length - loops.length, wanted, opts.visibility !== undefined));
  const builtins = builtinLoopNames();
  if (!filtered && builtins.length) opts.out(`built-in: ${builtins.join(', ')} (ll-loop list --builtin)\n`);
  return EXIT.ok;
}

/** Under `list --running` when a run has no worker (docs/cli.md shows it as printed). */
export const NO_WORKER_NOTE =
  "no worker: nothing runs it at this moment; any ll-loop command in its checkout starts the checkout's worker again (this one did for this checkout), and the run carries on (ll-loop resume <run id> for runs of ll-loop 0.2.0)";

async function printRunning(opts: ListOptions): Promise<number> {
  const allProjects = opts.allProjects === true;
  // The checkout's worker lists them when it can (no SDK here); otherwise this command does.
  const listed = await runsService().running(opts.cwd, allProjects);
  const runs = underParents(listed);
  const [{ describePhase }, { describeWorker }] = await Promise.all([
    import('../../runs/find/status-text.js'),
    import('../../runs/workers/queue-pollers.js'),
  ]);
  if (opts.json) {
    opts.out(`${JSON.stringify(runs, null, 2)}\n`);
    return EXIT.ok;
  }
  if (runs.length === 0) {
    opts.out(
      opts.allProjects
        ? 'no loops are running\n'
        : "no loops of this project are running (ll-loop list --running --all-projects for every project's)\n",
    );
    return EXIT.ok;
  }
  const rows = runs.map((r) => [
    `${'  '.repeat(r.depth)}${r.depth > 0 ? '└ ' : ''}${r.id}`,
    r.loop,
    r.worker ? (r.state ?? '') : 'no worker',
    r.lock === 'waiting' ? 'waiting for its scopes' : r.worker && r.phase ? describePhase(r.phase) : '-',
    r.iteration === null ? '-' : `${r.iteration}/${r.max_iterations}`,
    localTime(new Date(r.started_at)),
    r.build_id ?? r.version ?? '0.1.0 or older',
    r.served_by.length ? r.served_by.map(describeWorker).join(', ') : 'none',
  ]);
  opts.out(
    table(
      withProjects(
        ['RUN ID', 'LOOP', 'STATE', 'PHASE', 'ITERATION', 'STARTED', 'LL-LOOP', 'WORKER'],
        rows,
        runs,
        allProjects,
      ),
    ),
  );
  if (runs.some((r) => !r.worker)) opts.out(`${NO_WORKER_NOTE}\n`);
  return EXIT.ok;
}

/** `ll-loop list`. Returns the exit code. */
export async function listCommand(opts: ListOptions): Promise<number> {
  if (opts.allProjects && !opts.running && !opts.failed) {
    throw new UsageError(
      "--all-projects widens --running and --failed; the loops listed are always this project's",
      'use ll-loop list --running --all-projects or ll-loop list --failed --all-projects',
    );
  }
  if (opts.status !== undefined) {
    if (opts.failed || opts.builtin || opts.category !== undefined || (opts.labels ?? []).length > 0)
      throw new UsageError(
        '--status lists runs; it takes no other filter',
        'use ll-loop list --status S alone (with --json if wanted)',
      );
    if (opts.status !== 'running')
      return (await import('./list-status.js')).printStatus({ ...opts, status: opts.status });
  }
  const runsListed = opts.running || opts.failed || opts.status !== undefined;
  if (opts.visibility !== undefined && runsListed)
    throw new UsageError(
      '--visibility filters the loops, not runs',
      'use ll-loop list --visibility V, or list the runs without it',
    );
  if (opts.failed) {
    if (opts.running || opts.builtin || opts.category !== undefined || (opts.labels ?? []).length > 0) {
      throw new UsageError(
        '--failed lists runs; it takes no other filter',
        'use ll-loop list --failed alone (with --json if wanted)',
      );
    }
    return (await import('./list-failed.js')).printFailed(opts);
  }
  if (opts.running) {
    if (opts.builtin)
      throw new UsageError(
        '--running and --builtin cannot be combined',
        'use ll-loop list --running or ll-loop list --builtin',
      );
    if (opts.category !== undefined || (opts.labels ?? []).length > 0) {
      throw new UsageError(
        '--category and --label filter the loops in .loops/, not --running',
        'use ll-loop list --running alone',
      );
    }
    return printRunning(opts);
  }
  if (opts.status === 'running') return printRunning(opts);
  return opts.builtin ? printBuiltins(opts) : printLoops(opts);
}

/**
 * The labels `--label` asks for: repeated (`--label a --label b`) or as a comma list
 * (`--label a,b`), the same; a loop is listed when it has every one of them.
 */
export function labelsWanted(given: readonly string[]): string[] {
  const labels = given.flatMap((g) => g.split(',')).map((l) => l.trim());
  if (labels.some((l) => l === ''))
    throw new UsageError(
      '--label needs a label name (an empty one was given)',
      'll-loop list --label fast, or --label fast,lint for loops with both',
    );
  return [...new Set(labels)];
}

/** `ll-loop list` in the command table. */
export const listSpec: CommandSpec = {
  usage:
    'list [--running|--waiting|--failed|--status S [--all-projects]|--builtin] [--category C] [--label L]… [--visibility V] [--json]   loops in .loops/, live, failed or ended runs, or the built-ins',
  flags: {
    running: { type: 'boolean' },
    waiting: { type: 'boolean' },
    failed: { type: 'boolean' },
    'all-projects': { type: 'boolean' },
    builtin: { type: 'boolean' },
    category: { type: 'string' },
    label: { type: 'string', multiple: true },
    status: { type: 'string' },
    visibility: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(ctx) {
    if (ctx.positionals.length > 0)
      throw new UsageError(
        `unexpected arguments: ${ctx.positionals.join(' ')}`,
        'll-loop list [--running|--builtin] [--category C] [--label L]',
      );
    const category = str(ctx, 'category');
    const status = str(ctx, 'status');
    const visibility = str(ctx, 'visibility');
    // The runs waiting for a person: `ll-loop inbox`'s list.
    if (bool(ctx, 'waiting'))
      return import('./inbox-report.js').then(({ printInbox }) =>
        printInbox({ cwd: ctx.cwd, json: bool(ctx, 'json'), allProjects: bool(ctx, 'all-projects'), out: ctx.out }),
      );
    return listCommand({
      cwd: ctx.cwd,
      json: bool(ctx, 'json'),
      running: bool(ctx, 'running'),
      failed: bool(ctx, 'failed'),
      builtin: bool(ctx, 'builtin'),
      allProjects: bool(ctx, 'all-projects'),
      labels: labelsWanted(list(ctx, 'label')),
      out: ctx.out,
      err: ctx.err,
      ...(category === undefined ? {} : { category }),
      ...(status === undefined ? {} : { status: (await import('./list-status.js')).statusWanted(status) }),
      ...(visibility === undefined ? {} : { visibility: visibilityWanted(visibility) }),
    });
  },
};
