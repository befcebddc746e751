/**
 * `ll-loop run`'s early start, asked by the bin before it loads the CLI (bin/ll-loop.js): when
 * this checkout's worker of this very build is up, the command line goes to it at once over its
 * start socket, and the worker parses it, loads the loop and starts the run (start-from-argv.ts)
 * while this process loads the rest of the CLI. Loading the CLI is most of a command's own time
 * to its start (some 90 ms of CPU), and on a busy machine the command gets only its share of a
 * core; the worker is already warm. The command takes the answer over (run-loop.ts): a run
 * started, the error the start met, or a refusal, after which it does everything the ordinary way
 * and reports what the worker would not (docs/decisions.md, "The early start").
 *
 * Light on purpose: bundled on its own as dist/cli/early-start.cjs, it loads none of the CLI.
 */
import type { WorkerRecord } from '../../host/checkout.js';
import { EXIT } from '../../errors/exit-codes.js';
import { STOPPING_NOTE } from '../follow/interrupt.js';
import { checkoutWorkerTarget, choosesWorker } from '../worker-ask.js';
import { localStamp } from './instance-id.js';
import { askToStart } from '../transport/ask.js';
import type { WorkerArgvStartReply, WorkerArgvStartRequest } from '../transport/schemas.js';
import { printBackgroundStart } from './background-start.js';

export interface EarlyStart {
  /**
   * The worker's answer; undefined when the request never reached it. Rejects when the worker
   * took the request and its answer was lost (the run may exist).
   */
  reply: Promise<WorkerArgvStartReply | undefined>;
  /**
   * Settles once the request is written (or could not be): the bin waits for it before it loads
   * the CLI, whose loading is one long synchronous stretch during which nothing would be sent.
   */
  sent: Promise<void>;
  /** The worker asked. */
  worker: WorkerRecord;
  /**
   * Hand Ctrl-C over to the command's own handling: removes the handlers installed here and says
   * whether a Ctrl-C came meanwhile (the command then stops the run as soon as it exists).
   */
  takeInterrupt(): boolean;
  /**
   * `--background` and the worker queued the run: print what the command prints and say so (the
   * command is done, without loading the CLI); false for any other answer, which the CLI takes over.
   */
  printQueued(out?: (text: string) => void): Promise<boolean>;
}

/**
 * Writes to stdout; a reader that went away (`ll-loop run x --background | head -0`) is not the
 * command's error, as in the CLI (client/cli.ts runCli): what is left to print is dropped.
 */
function toStdout(text: string): void {
  if (process.stdout.listenerCount('error') === 0)
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
    });
  process.stdout.write(text);
}

/** Arguments after which the command does something else than start a run: never asked early. */
const NOT_A_START = new Set(['--help', '-h', '--dry-run']);

/**
 * Whether `argv` asks for a background run: `--background`, or `-b` alone or grouped (`-bq`) as
 * the CLI's parser reads it; a short flag that takes a value (`-c`, `-n`) ends its group.
 */
export function asksBackground(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === '--') return false;
    if (arg === '--background') return true;
    if (!/^-[A-Za-z]+$/.test(arg)) continue;
    for (const letter of arg.slice(1)) {
      if (letter === 'b') return true;
      if (letter === 'c' || letter === 'n') break;
    }
  }
  return false;
}

/**
 * Ask the checkout's worker to start `argv` (`run …`, as typed in `cwd`), or undefined when it
 * may not be asked: another command, a dry run, the runs service's choice of `direct`
 * (runs/worker-ask.ts choosesWorker), or no worker of this build for this checkout and server.
 */
export function earlyStart(
  argv: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  now: Date = new Date(),
): EarlyStart | undefined {
  if (argv[0] !== 'run') return undefined;
  if (argv.some((a) => NOT_A_START.has(a))) return undefined;
  // The runs service's choice: the command's service would not ask the worker either.
  if (!choosesWorker(env)) return undefined;
  const target = checkoutWorkerTarget(cwd, env);
  if (target === undefined) return undefined;
  const request: WorkerArgvStartRequest = {
    kind: 'start_argv',
    code_id: target.code_id,
    address: target.address,
    root: target.root,
    argv: [...argv],
    cwd,
    env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
    stamp: localStamp(now),
  };
  // From the moment the run may exist, Ctrl-C means "stop it", as it does once the command
  // follows (runs/follow/interrupt.ts): noted here, acted on by the command. A background start
  // is not followed: Ctrl-C ends the command as it would without this.
  const background = asksBackground(argv);
  let interrupts = 0;
  const onSignal = () => {
    interrupts += 1;
    if (interrupts === 1) process.stderr.write(STOPPING_NOTE);
    else process.exit(EXIT.cancelled);
  };
  const listen = () => {
    if (background) return;
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  };
  // Listening before the request is written: a Ctrl-C between the write and its callback (a busy
  // machine) would otherwise meet no handler and kill the command with the run started. One that
  // comes before the run exists is noted all the same: the command then starts nothing.
  listen();
  let written: () => void = () => undefined;
  const sent = new Promise<void>((resolve) => (written = resolve));
  const reply = askToStart<WorkerArgvStartReply>(target.path, request, written);
  // Not reached, or refused before the write: nothing to wait for.
  void reply.then(written, written);
  return {
    reply,
    sent,
    worker: target.worker,
    takeInterrupt() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      return interrupts > 0;
    },
    async printQueued(out = toStdout) {
      if (!background) return false;
      // A lost answer is the CLI's to report (run-loop.ts startedEarly).
      const answer = await reply.catch(() => undefined);
      if (answer?.kind !== 'queued') return false;
      printBackgroundStart(out, answer.json, {
        instanceId: answer.instance_id,
        taskQueue: answer.task_queue,
        worker: target.worker,
        cwd,
        uiUrl: answer.run_url,
      });
      return true;
    },
  };
}
