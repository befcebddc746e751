/**
 * `ll-loop resume <name|run-id>`: the runs service resumes the run (runs/resume/resume-run.ts:
 * a stopped run continued by a new one, an open run given its worker, printing nothing); this
 * command says what it did and, unless `--background`, follows the run as `run` does. An open run
 * of ll-loop 0.2.0 on its own task queue is served by this process while it is followed
 * (runs/resume/serve-here.ts).
 */
import { basename } from 'node:path';
import { colourWanted } from '../../reporters/style.js';
import { bool, str, type CommandSpec } from '../command-table.js';
import { CONTEXT_FLAGS, contextPairs } from './context-flags.js';
import { positiveInt } from './argument-errors.js';
import { UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { QUEUE_FLAGS, queueChoiceOf } from './queue-flags.js';
import { printDiagnostics } from '../../reporters/diagnostics.js';
import type { Reporter } from '../../reporters/reporter.js';
import type { Detail } from '../../reporters/human.js';
import type { RunStateFile } from '../../workflows/definitions.js';
import { createReporter, followRun } from '../../runs/follow/follow-run.js';
import { armInterrupt, interruptible } from '../../runs/follow/interrupt.js';
import type { ResumedRun, ResumeNote, ResumeRequest } from '../../runs/resume/resume-run.js';
import { runsService } from '../../runs/service/runs-service.js';
import type { RunsService } from '../../runs/service/interface.js';
import { backgroundText, followMadeRun, interruptionAtStart } from './follow-made-run.js';

/** Options of {@link resumeCommand}: what to resume, and how to show it. */
interface ResumeOptions extends Omit<ResumeRequest, 'follows' | 'onNote' | 'onStarting' | 'onStarted'> {
  /** `--background`: resume (or hand over) the run and return at once, like `run --background`. */
  background?: boolean;
  json: boolean;
  /** Colour in the progress display. */
  colour?: boolean;
  /** `--verbose` / `--quiet`: how much of the progress display, as for `run`. */
  detail?: Detail;
  out: (text: string) => void;
  err: (text: string) => void;
  /** The runs service (runsService() when not given). */
  runs?: RunsService;
}

/** `ll-loop resume`: the exit code of the run it followed (0 with `--background`). */
export async function resumeCommand(opts: ResumeOptions): Promise<number> {
  const { background, json, colour, detail, out, err, runs: given, ...req } = opts;
  const runs = given ?? runsService();
  const atStart = interruptionAtStart(err);
  try {
    const resumed = await runs.resume({
      ...req,
      follows: background !== true,
      onNote: (note) => printNote(note, opts),
      onStarting: atStart.onStarting,
      onStarted: atStart.onStarted,
    });
    if (background) {
      out(backgroundOf(resumed, json));
      return EXIT.ok;
    }
    if (resumed.kind === 'unserved') return await serveAndFollow(resumed, opts);
    if (!json) out(`${foregroundLine(resumed)}\n`);
    return await followMadeRun({
      runs,
      cwd: req.cwd,
      id: resumed.id,
      info: resumed.info,
      reporter:
        json && resumed.kind === 'resumed'
          ? resumedJsonReporter(out, resumed.resumedFrom)
          : createReporter(json, out, resumed.maxIterations, colour, detail),
      err,
      interruption: atStart.installed(),
      lock: resumed.kind === 'resumed' ? resumed.lock : undefined,
    });
  } finally {
    atStart.installed()?.stop();
  }
}

/** What the service told on the way: the stopped run's notes on stderr, what was done on stdout. */
function printNote(note: ResumeNote, opts: ResumeOptions): void {
  switch (note.kind) {
    case 'open-ignores-flags':
      opts.err(
        `note: ${note.id} is still open; --context, --max-iterations and --queue apply only when resuming a stopped run\n`,
      );
      return;
    case 'moved':
      if (!opts.json)
        opts.out(`moved ${note.id} onto this ll-loop (${note.reason}); it continues in state ${note.state}\n`);
      return;
    case 'handed-off':
      if (!opts.json)
        opts.out(`${note.id} was paused on a handoff: state ${note.state} runs again, continuing from it\n`);
      return;
    case 'file-gone':
      opts.err(
        `note: the loop file ${note.file ?? '(none recorded)'} is gone; resuming with the definition ${note.id} started with\n`,
      );
      return;
    case 'invalid-file':
      printDiagnostics(note.diagnostics, opts.json, opts.out, opts.err);
  }
}

/** The line said of a stopped run's continuation, or of an open run's worker. */
function runLine(r: Exclude<ResumedRun, { kind: 'unserved' }>): string {
  return r.kind === 'resumed'
    ? `resuming ${r.resumedFrom} (${r.reason} in state ${r.state}, pass ${r.iteration}/${r.maxIterations}) as ${r.id}`
    : `${r.id} is still open: the worker pid ${r.worker.pid} on ${r.worker.host} serves it`;
}

function foregroundLine(r: Exclude<ResumedRun, { kind: 'unserved' }>): string {
  return r.kind === 'resumed' ? runLine(r) : `${runLine(r)}; following it`;
}

/** `--background`: what was started (or is still running) and how to follow or stop it. */
function backgroundOf(r: ResumedRun, json: boolean): string {
  // The service hands back an unserved run only to a caller that follows it.
  if (r.kind === 'unserved') throw new Error(`resume in the background was handed ${r.id} to serve`);
  if (json)
    return `${JSON.stringify({ instance_id: r.id, ...(r.kind === 'resumed' ? { resumed_from: r.resumedFrom } : {}) })}\n`;
  return backgroundText(r.kind === 'resumed' ? `${runLine(r)}, in the background` : runLine(r), r.id);
}

/** An open run of 0.2.0 on its own queue: this process serves it while it follows it. */
async function serveAndFollow(r: Extract<ResumedRun, { kind: 'unserved' }>, opts: ResumeOptions): Promise<number> {
  const { serveRunHere } = await import('../../runs/resume/serve-here.js');
  return serveRunHere(opts.cwd, r.id, r.taskQueue, async ({ client, worker }) => {
    // The display replays the run's events so far, then follows it live.
    if (!opts.json) {
      opts.out(`resuming ${r.id}: it is still open but nothing was running it; its worker runs here now\n`);
      if (r.where && r.where.phase !== 'done')
        opts.out(
          `in state ${r.where.current_state} (pass ${r.where.iteration}/${r.maxIterations ?? '?'}, ${phaseText(r.where.phase)})\n`,
        );
    }
    const { interrupt, stop } = interruptible(opts.err);
    armInterrupt(interrupt, () => client.workflow.getHandle(r.id).cancel());
    try {
      return await followRun({
        via: client,
        workflowId: r.id,
        worker,
        reporter: createReporter(opts.json, opts.out, r.maxIterations ?? 0, opts.colour, opts.detail),
        info: r.info,
        err: opts.err,
      });
    } finally {
      stop();
    }
  });
}

/** `--json`: the result as `run --json` prints it, plus `resumed_from`. */
function resumedJsonReporter(out: (t: string) => void, resumedFrom: string): Reporter {
  return {
    onEvent: () => undefined,
    onResult(result, info) {
      out(
        `${JSON.stringify({ instance_id: info.instanceId, resumed_from: resumedFrom, ...result, ...(info.eventsFile ? { events_file: info.eventsFile } : {}) }, null, 2)}\n`,
      );
    },
  };
}

/** What an open run was doing when its worker went away. */
function phaseText(phase: RunStateFile['phase']): string {
  switch (phase) {
    case 'action':
      return 'its action was in flight: it runs again once Temporal notices the old worker is gone, within 30 s';
    case 'llm':
      return 'its LLM evaluation was in flight: it runs again once Temporal notices the old worker is gone, within 30 s';
    default:
      return phase.replace('_', ' ');
  }
}

/**
 * little-loops' `resume <loop> --instance-id ID`: the run ID, which must be a run of that loop
 * (`<loop>-<time>…`), so a mistyped id never resumes another loop's run.
 */
function instanceTarget(loop: string | undefined, id: string | undefined): string | undefined {
  if (id === undefined) return loop;
  const name = loop === undefined ? undefined : basename(loop).replace(/\.ya?ml$/, '');
  if (name !== undefined && !id.startsWith(`${name}-`))
    throw new UsageError(
      `--instance-id ${id} is not a run of loop "${name}" (its runs are ${name}-<time>…)`,
      `ll-loop resume ${id}, or give the id of a run of ${name} (ll-loop history ${name} lists them)`,
    );
  return id;
}

export const resumeSpec: CommandSpec = {
  usage:
    'resume <name|run-id> [--context K=V]… [--context-file K=PATH]… [--context-allow-unknown] [--max-iterations N] [--queue [--queue-timeout D]] [-b|--background] [--verbose|--quiet] [--json] [<name> --instance-id ID]   continue a stopped run, or one that lost its worker',
  flags: {
    ...CONTEXT_FLAGS,
    ...QUEUE_FLAGS,
    'context-allow-unknown': { type: 'boolean' },
    'max-iterations': { type: 'string' },
    json: { type: 'boolean' },
    background: { type: 'boolean', short: 'b' },
    verbose: { type: 'boolean' },
    quiet: { type: 'boolean' },
    'instance-id': { type: 'string' },
  },
  run(ctx) {
    const target = instanceTarget(ctx.positionals[0], str(ctx, 'instance-id'));
    if (target === undefined)
      throw new UsageError('resume needs a loop name or a run id', 'll-loop resume <name|run-id>');
    if (ctx.positionals.length > 1)
      throw new UsageError(
        `unexpected arguments: ${ctx.positionals.slice(1).join(' ')}`,
        'quote values that contain spaces',
      );
    if (bool(ctx, 'verbose') && bool(ctx, 'quiet'))
      throw new UsageError('--verbose and --quiet contradict each other', 'use one of them');
    const maxIterations = positiveInt(str(ctx, 'max-iterations'), '--max-iterations');
    return resumeCommand({
      cwd: ctx.cwd,
      target,
      ...queueChoiceOf(ctx),
      context: contextPairs(ctx),
      allowUnknownContext: bool(ctx, 'context-allow-unknown'),
      json: bool(ctx, 'json'),
      background: bool(ctx, 'background'),
      detail: bool(ctx, 'verbose') ? 'verbose' : bool(ctx, 'quiet') ? 'quiet' : 'normal',
      colour: colourWanted(ctx.terminal),
      out: ctx.out,
      err: ctx.err,
      ...(maxIterations === undefined ? {} : { maxIterations }),
    });
  },
};
