/**
 * What `resume` and `rerun` do alike with the run the runs service made for them: follow it to its
 * end through the service's `follow`, as `run` does (the progress display, the exit code; Ctrl-C
 * cancels the run and it is followed on to its end), or, with `--background`, say how to follow or
 * stop it.
 */
import { armInterrupt, interruptible, type Interrupt } from '../../runs/follow/interrupt.js';
import { followRun } from '../../runs/follow/follow-run.js';
import type { RunsService } from '../../runs/service/interface.js';
import type { Reporter, RunInfo } from '../../reporters/reporter.js';
import type { ScopeLockRequest } from '../../workflows/definitions.js';

/** The command's Ctrl-C handling (runs/follow/interrupt.ts), once installed. */
type Interruption = { interrupt: Interrupt; stop: () => void };

/**
 * The Ctrl-C handling a command hands the service's `resume` / `rerun`: installed just before the
 * run is started, pointed at it once it exists.
 */
export function interruptionAtStart(err: (text: string) => void): {
  onStarting: () => void;
  onStarted: (cancel: () => Promise<unknown>) => void;
  /** The installed handling, when the run was started. */
  installed: () => Interruption | undefined;
} {
  let interruption: Interruption | undefined;
  return {
    onStarting: () => {
      interruption ??= interruptible(err);
    },
    onStarted: (cancel) => {
      if (interruption) armInterrupt(interruption.interrupt, cancel);
    },
    installed: () => interruption,
  };
}

/** `--background`: the line said of the run, and how to follow or stop it. */
export function backgroundText(line: string, id: string): string {
  return `${line}\n  follow: ll-loop status ${id} --follow\n  stop:   ll-loop stop ${id}\n`;
}

/**
 * Follow run `id` to its end by the runs service's `follow`, showing it with `reporter`; returns
 * its exit code. Ctrl-C (`interruption`, installed now when not given) cancels the run.
 */
export async function followMadeRun(f: {
  runs: RunsService;
  cwd: string;
  id: string;
  info: RunInfo;
  reporter: Reporter;
  err: (text: string) => void;
  interruption?: Interruption | undefined;
  /** The run's scope lock: with `--queue` (given or inherited), a note says once that it waits. */
  lock?: ScopeLockRequest | undefined;
}): Promise<number> {
  const interruption = f.interruption ?? interruptible(f.err);
  const cancel = new AbortController();
  armInterrupt(interruption.interrupt, async () => cancel.abort());
  try {
    return await followRun({
      via: (req) => f.runs.follow({ ...req, cwd: f.cwd }),
      workflowId: f.id,
      reporter: f.reporter,
      info: f.info,
      err: f.err,
      cancelRun: cancel.signal,
      ...(f.lock ? { lock: f.lock } : {}),
    });
  } finally {
    interruption.stop();
  }
}
