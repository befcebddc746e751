/**
 * `ll-loop rerun <name|run-id> --from STATE[#N] [--context K=V]… [--background]`: the runs service
 * starts the new run (runs/control/rerun.ts, printing nothing); this command says so and, unless
 * `--background`, follows it as `run` does.
 */
import { colourWanted } from '../../reporters/style.js';
import { bool, str, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import type { Detail } from '../../reporters/human.js';
import { createReporter } from '../../runs/follow/follow-run.js';
import type { RerunRequest, RerunStarted } from '../../runs/control/rerun.js';
import { runsService } from '../../runs/service/runs-service.js';
import type { RunsService } from '../../runs/service/interface.js';
import { CONTEXT_FLAGS, contextPairs } from './context-flags.js';
import { QUEUE_FLAGS, queueChoiceOf } from './queue-flags.js';
import { backgroundText, followMadeRun, interruptionAtStart } from './follow-made-run.js';

/** Options of {@link rerunCommand}: what to rerun, and how to show it. */
interface RerunOptions extends Omit<RerunRequest, 'follows' | 'onStarting' | 'onStarted'> {
  /** `--background`: start the new run and return at once, like `run --background`. */
  background?: boolean;
  json: boolean;
  colour?: boolean;
  detail?: Detail;
  out: (text: string) => void;
  err: (text: string) => void;
  /** The runs service (runsService() when not given). */
  runs?: RunsService;
}

/** `ll-loop rerun`: the exit code of the new run (0 with `--background`). */
export async function rerunCommand(opts: RerunOptions): Promise<number> {
  const { background, json, colour, detail, out, err, runs: given, ...req } = opts;
  const runs = given ?? runsService();
  const atStart = interruptionAtStart(err);
  try {
    const started = await runs.rerun({
      ...req,
      follows: background !== true,
      onStarting: atStart.onStarting,
      onStarted: atStart.onStarted,
    });
    if (background) {
      out(
        json
          ? `${JSON.stringify({ instance_id: started.id, forked_from: started.forkedFrom })}\n`
          : backgroundText(`${rerunLine(started)}, in the background`, started.id),
      );
      return EXIT.ok;
    }
    if (!json) out(`${rerunLine(started)}\n`);
    return await followMadeRun({
      runs,
      cwd: req.cwd,
      id: started.id,
      info: started.info,
      reporter: createReporter(json, out, started.maxIterations, colour, detail),
      lock: started.lock,
      err,
      interruption: atStart.installed(),
    });
  } finally {
    atStart.installed()?.stop();
  }
}

function rerunLine(r: RerunStarted): string {
  return `rerunning ${r.runId} from state ${r.state}#${r.visit} of ${r.visits} (event ${r.event}) as ${r.id}`;
}

export const rerunSpec: CommandSpec = {
  usage:
    'rerun <name|run-id> --from STATE[#N] [--context K=V]… [--context-file K=PATH]… [--queue [--queue-timeout D]] [--background] [--verbose|--quiet] [--json]   start a new run from the state an earlier run entered',
  flags: {
    ...CONTEXT_FLAGS,
    ...QUEUE_FLAGS,
    from: { type: 'string' },
    background: { type: 'boolean' },
    json: { type: 'boolean' },
    verbose: { type: 'boolean' },
    quiet: { type: 'boolean' },
  },
  async run(ctx) {
    const usage = 'll-loop rerun <name|run-id> --from STATE[#N] [--context K=V]…';
    const [target, ...rest] = ctx.positionals;
    if (target === undefined) throw new UsageError('rerun needs a loop name or run id', usage);
    if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`, usage);
    const from = str(ctx, 'from');
    if (from === undefined || from === '') throw new UsageError('rerun needs --from STATE (or STATE#N)', usage);
    if (bool(ctx, 'verbose') && bool(ctx, 'quiet'))
      throw new UsageError('--verbose and --quiet contradict each other', 'use one of them');
    return rerunCommand({
      cwd: ctx.cwd,
      target,
      from,
      context: contextPairs(ctx),
      ...queueChoiceOf(ctx),
      background: bool(ctx, 'background'),
      json: bool(ctx, 'json'),
      colour: colourWanted(ctx.terminal),
      detail: bool(ctx, 'verbose') ? 'verbose' : bool(ctx, 'quiet') ? 'quiet' : 'normal',
      out: ctx.out,
      err: ctx.err,
    });
  },
};
