/**
 * The action spawner: a small Node process the worker forks (activities/action-spawner.ts) that
 * runs quick actions with the very same {@link runProcess} the worker would run them with — same
 * gate, process group, watchdog, timeout, kill, output capture and secret masking — and sends the
 * result back over the IPC channel. A whole burst runs here too (activities/burst-loop.ts): its
 * facts go back one by one as its actions end, and no action waits for the worker in between.
 * It also lists a checkout's files for `tamper_guard:` (activities/checkout-files.ts): a `git` forked
 * from here rather than from the worker.
 *
 * Why a process of its own: starting a child costs the parent a fork whose price grows with the
 * parent's resident memory (page tables copied): measured 1.4 ms of CPU from a 57 MB process,
 * 5.6 ms from 266 MB, 12.5 ms from 682 MB. The worker holds workflows, bundles and caches; this
 * process holds only this module's imports, so each quick action's start costs what it costs from
 * a small process, off the worker's main thread.
 *
 * Invariants: when the worker goes (the channel closes: exit, crash or SIGKILL), every running
 * action is stopped as a cancellation stops it (its group: SIGTERM, SIGKILL after the grace) and
 * this process exits once they ended; its own watchdog (group-reaper.ts) guards them should it die.
 */
import { startGroupWatchdog } from './group-reaper.js';
import { SpawnError, runProcess } from './process.js';
import { BurstControl, runBurstLoop } from './burst-loop.js';
import { ShellSetupFault, runShellAction } from './shell-action.js';
import { listCheckoutFiles } from './checkout-files.js';
import { StreamJsonLive } from './stream-json-live.js';
import type { SpawnerFault, SpawnerReply, SpawnerRequest } from './spawner-protocol.js';

/** What stops each running action or burst (and drains a burst), by id. */
const running = new Map<number, { abort: (why?: 'stop' | 'cancel', at?: number) => void; drain?: () => void }>();
let leaving = false;

function reply(message: SpawnerReply): void {
  // The worker may be gone already: the result then has no one to go to. It can also go while
  // the message is on its way (a command that ran one action and exited): the send then fails
  // with EPIPE, given to the callback, where without one it would crash this process with a
  // stack trace on the command's terminal; the channel's `disconnect` ends this process.
  if (process.connected) process.send?.(message, undefined, {}, () => undefined);
}

function ended(id: number): void {
  running.delete(id);
  if (leaving && running.size === 0) process.exit(0);
}

async function run(request: Extract<SpawnerRequest, { t: 'run' }>): Promise<void> {
  const stop = new AbortController();
  running.set(request.id, { abort: () => stop.abort() });
  try {
    const { secrets: sent, liveView, ...opts } = request.opts;
    const secrets = sent.map((s) => Buffer.from(s, 'base64'));
    const result = await runProcess({
      ...opts,
      secrets,
      ...(liveView === 'stream-json' ? { liveView: new StreamJsonLive(secrets) } : {}),
      signal: stop.signal,
    });
    reply({ t: 'done', id: request.id, result });
  } catch (e) {
    const err = e as Error;
    reply({
      t: 'failed',
      id: request.id,
      message: err.message,
      ...(e instanceof SpawnError ? { spawn: { reason: e.reason, ...(e.code ? { code: e.code } : {}) } } : {}),
    });
  } finally {
    ended(request.id);
  }
}

async function burst(request: Extract<SpawnerRequest, { t: 'burst' }>): Promise<void> {
  const { id, input, env, journaled } = request;
  const control = new BurstControl();
  running.set(id, { abort: (why = 'cancel', at = Date.now()) => control.abort(why, at), drain: () => control.drain() });
  try {
    const end = await runBurstLoop(
      input,
      (action, stop) => runShellAction(action, env, runProcess, { signal: stop }),
      control,
      (fact, state) => reply({ t: 'fact', id, fact, state }),
      journaled,
    );
    reply({ t: 'burst_end', id, end: end.ended === 'fault' ? { ended: 'fault', error: faultOf(end.error) } : end });
  } catch (e) {
    // The loop itself failed (a fault of ours, not of an action): the worker fails the burst's
    // action that ran then, as it would any fault.
    reply({ t: 'burst_end', id, end: { ended: 'fault', error: faultOf(e) } });
  } finally {
    ended(id);
  }
}

async function list(request: Extract<SpawnerRequest, { t: 'list' }>): Promise<void> {
  running.set(request.id, { abort: () => undefined });
  try {
    reply({ t: 'listed', id: request.id, files: (await listCheckoutFiles(request.cwd)) ?? null });
  } finally {
    ended(request.id);
  }
}

function faultOf(error: unknown): SpawnerFault {
  const message = error instanceof Error ? error.message : String(error);
  return error instanceof ShellSetupFault ? { message, setup: true } : { message };
}

process.on('message', (message: SpawnerRequest) => {
  if (message.t === 'run') void run(message);
  else if (message.t === 'burst') void burst(message);
  else if (message.t === 'list') void list(message);
  else if (message.t === 'abort') running.get(message.id)?.abort(message.why, message.at);
  else if (message.t === 'drain') running.get(message.id)?.drain?.();
});

process.on('disconnect', () => {
  leaving = true;
  if (running.size === 0) process.exit(0);
  for (const stop of running.values()) stop.abort();
});

// Interrupts at the terminal are the worker's to handle; this process goes with its channel.
process.on('SIGINT', () => undefined);
startGroupWatchdog();
reply({ t: 'ready' });
