/**
 * The worker's side of the action spawner (activities/spawner-main.ts): shell actions started by a
 * small forked process instead of the worker itself, whose every fork costs in proportion to its
 * resident memory (measured: 5.6 ms of CPU per spawn at 266 MB, 12.5 ms at 682 MB, 1.4 ms at 57 MB).
 *
 * Invariants:
 * - the result is {@link runProcess}'s, computed by the same code in the spawner: this module only
 *   carries options, aborts and results; heartbeats are beaten here, while the action runs;
 * - one spawner per worker process, forked on first use and told to leave (its channel closed)
 *   after {@link SPAWNER_IDLE_MS} with no action running — in it, or in the worker itself (a
 *   prompt's agent: {@link ActionSpawner.hold}) —, so an idle worker holds no second process;
 * - it never keeps the worker's event loop alive by itself (child and channel unref'd when idle);
 * - should it fail to start, actions run in the worker as before; should it die under running
 *   actions, those fail as faults of the activity (retried as any), never as results.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ActionResult } from '../fsm/types.js';
import { PACKAGE_ROOT } from '../host/paths.js';
import { SpawnError, runProcess, type RunProcessOptions } from './process.js';
import type { SpawnerFault, SpawnerReply, SpawnerRequest } from './spawner-protocol.js';
import type { BurstFact } from '../fsm/run/burst.js';
import type { RunBurstInput } from '../workflows/activity-types.js';
import type { JournaledAction } from './action-journal.js';
import type { BurstControl, BurstEnd } from './burst-loop.js';
import { spawnerStartEnv } from './spawner-env.js';
import { listCheckoutFiles, type ListFiles } from './checkout-files.js';
import { StreamJsonLive } from './stream-json-live.js';

/** How actions are started: {@link runProcess} itself, or through the spawner. */
export type Launch = (opts: RunProcessOptions) => Promise<ActionResult>;

/** With no action running for this long, the spawner is let go. */
const SPAWNER_IDLE_MS = 30_000;

/** Spawners in a row that end before they are up, after which actions run in the worker for a while. */
const MAX_FAILED_STARTS = 3;
/** How long actions run in the worker after the spawner could not start, before it is tried again. */
const SPAWNER_RETRY_MS = 60_000;

/** Node options of the spawner: it holds little, so a small young generation is enough. */
const SPAWNER_NODE_ARGS = ['--max-semi-space-size=1'];

interface Pending {
  /** An action's result, a burst's end, or a listing's files (null: git could not list them). */
  resolve: (r: ActionResult | BurstEnd<SpawnerFault> | string[] | null) => void;
  reject: (e: Error) => void;
  /** A burst's facts as they come. */
  onFact?: (fact: BurstFact, state: string) => void;
  /** The spawner the request was sent to (it fails with it); undefined while it waits for one to be up. */
  child: ChildProcess | undefined;
}

/** One spawner process and the actions it runs. */
export class ActionSpawner {
  private child: ChildProcess | undefined;
  private ready = false;
  private readonly queued: Array<() => void> = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private idle: NodeJS.Timeout | undefined;
  /** Spawners in a row that ended before they were up. */
  private failedStarts = 0;
  /** Actions the worker runs itself (a prompt's agent), during which the spawner is kept. */
  private holds = 0;
  /**
   * Until when (epoch ms) there is no spawner: it could not start {@link MAX_FAILED_STARTS} times
   * in a row, and actions run in the worker for {@link SPAWNER_RETRY_MS} before it is tried again.
   */
  private brokenUntil = 0;

  /** Whether the spawner could not start lately: requests then run in the worker. */
  private get broken(): boolean {
    if (this.brokenUntil === 0) return false;
    if (Date.now() < this.brokenUntil) return true;
    this.brokenUntil = 0;
    this.failedStarts = 0;
    return false;
  }

  constructor(
    private readonly entry: string,
    private readonly idleMs = SPAWNER_IDLE_MS,
  ) {}

  readonly launch: Launch = (opts) => {
    // A live view the spawner cannot make again is the worker's to run.
    const view =
      opts.liveView === undefined ? undefined : opts.liveView instanceof StreamJsonLive ? 'stream-json' : false;
    if (this.broken || opts.signal?.aborted || view === false) return runProcess(opts);
    this.ensureChild();
    return new Promise<ActionResult>((resolve, reject) => {
      const id = this.nextId++;
      const { signal, onHeartbeat, heartbeatMs, secrets, liveView: _made, ...rest } = opts;
      const beat =
        onHeartbeat === undefined
          ? undefined
          : setInterval(() => {
              try {
                onHeartbeat();
              } catch {
                // As in runProcess: a failing heartbeat must not end the action.
              }
            }, heartbeatMs ?? 5000);
      const onAbort = (): void => this.send({ t: 'abort', id });
      const done = (): void => {
        if (beat !== undefined) clearInterval(beat);
        signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
        this.settleIdle();
      };
      this.pending.set(id, {
        child: undefined,
        resolve: (r) => {
          done();
          resolve(r as ActionResult);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      this.settleIdle();
      const request: SpawnerRequest = {
        t: 'run',
        id,
        opts: {
          ...rest,
          secrets: (secrets ?? []).map((s) => s.toString('base64')),
          ...(view === undefined ? {} : { liveView: view }),
        },
      };
      const start = (): void => {
        const entry = this.pending.get(id);
        if (entry === undefined) return;
        // Without a spawner (it failed to start), the action runs here, as it would have.
        if (this.broken) {
          done();
          runProcess(opts).then(resolve, reject);
          return;
        }
        entry.child = this.child;
        this.send(request);
        signal?.addEventListener('abort', onAbort, { once: true });
      };
      if (this.ready) start();
      else this.queued.push(start);
    });
  };

  /**
   * A whole burst in the spawner (activities/burst-loop.ts), waiting for it to start; its facts go
   * to `onFact` as its actions end; `env` is its actions' whole environment (their run's);
   * `journaled`: its first actions as an earlier attempt completed them (runBurstLoop's).
   * `control`'s stop and drain are passed on. Resolves to undefined when there is no spawner to run
   * it (it could not start): the caller runs the burst itself. Rejects when the spawner goes away
   * under it.
   */
  burst(
    input: RunBurstInput,
    env: Record<string, string>,
    control: BurstControl,
    onFact: (fact: BurstFact, state: string) => void,
    journaled: JournaledAction[] = [],
  ): Promise<BurstEnd<SpawnerFault> | undefined> {
    if (this.broken) return Promise.resolve(undefined);
    this.ensureChild();
    return new Promise<BurstEnd<SpawnerFault> | undefined>((resolve, reject) => {
      const id = this.nextId++;
      const onAbort = (): void => {
        const why = control.stopped;
        this.send({ t: 'abort', id, ...(why ? { why: why.reason, at: why.at } : {}) });
      };
      const onDrain = (): void => this.send({ t: 'drain', id });
      const done = (): void => {
        control.signal.removeEventListener('abort', onAbort);
        control.drained.removeEventListener('abort', onDrain);
        this.pending.delete(id);
        this.settleIdle();
      };
      this.pending.set(id, {
        child: undefined,
        onFact,
        resolve: (end) => {
          done();
          resolve(end as BurstEnd<SpawnerFault>);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      this.settleIdle();
      const start = (): void => {
        const entry = this.pending.get(id);
        if (entry === undefined) return;
        // The spawner never started: the caller runs the burst itself.
        if (this.broken) {
          done();
          resolve(undefined);
          return;
        }
        entry.child = this.child;
        this.send({ t: 'burst', id, input, env, ...(journaled.length > 0 ? { journaled } : {}) });
        control.signal.addEventListener('abort', onAbort, { once: true });
        if (control.signal.aborted) onAbort();
        control.drained.addEventListener('abort', onDrain, { once: true });
        if (control.drained.aborted) onDrain();
      };
      if (this.ready) start();
      else this.queued.push(start);
    });
  }

  /**
   * A checkout's files (activities/checkout-files.ts), listed by the spawner when it is up (its
   * fork of `git` is cheap), else here; here too should the spawner go away meanwhile.
   */
  readonly listFiles: ListFiles = (cwd) => {
    if (!this.up) return listCheckoutFiles(cwd);
    const listed = new Promise<string[] | undefined>((resolve, reject) => {
      const id = this.nextId++;
      const done = (): void => {
        this.pending.delete(id);
        this.settleIdle();
      };
      this.pending.set(id, {
        child: this.child,
        resolve: (files) => {
          done();
          resolve((files as string[] | null) ?? undefined);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      this.settleIdle();
      this.send({ t: 'list', id, cwd });
    });
    return listed.catch(() => listCheckoutFiles(cwd));
  };

  /**
   * Keeps the spawner while the worker runs an action of its own (a prompt's agent, minutes
   * long): what comes after it — the guard's listing, the next check — finds the spawner up, not
   * forked anew or run from the worker. Never keeps the worker's event loop alive. Returns the release.
   */
  hold(): () => void {
    this.holds += 1;
    this.settleIdle();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds -= 1;
      this.settleIdle();
    };
  }

  /** Whether what is sent now starts at once: the spawner is up. */
  get up(): boolean {
    return this.ready && !this.broken;
  }

  /** Starts the spawner, if it is not up, for what comes next (nothing waits for it). */
  warm(): void {
    if (this.broken) return;
    this.ensureChild();
    this.settleIdle();
  }

  /**
   * Through the spawner once it is up; until then here, in the worker, while the spawner starts
   * for the next action: a single action waiting for a Node process to start would be slower
   * than one forked from the worker.
   */
  readonly launchWhenReady: Launch = (opts) => {
    if (this.up) return this.launch(opts);
    this.warm();
    return runProcess(opts);
  };

  /** Lets the spawner go now (its running actions are stopped as a cancellation stops them). */
  close(): void {
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.idle = undefined;
    if (this.child?.connected) this.child.disconnect();
    this.child = undefined;
    this.ready = false;
  }

  /** The spawner's pid while it runs (tests). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  private send(message: SpawnerRequest): void {
    if (this.child?.connected) this.child.send(message);
  }

  private ensureChild(): void {
    if (this.child !== undefined) return;
    const child = fork(this.entry, [], {
      execArgv: SPAWNER_NODE_ARGS,
      env: spawnerStartEnv(process.env),
      // A session of its own: a Ctrl-C at the terminal reaches the worker, which decides.
      detached: true,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'json',
    });
    this.child = child;
    this.ready = false;
    child.on('message', (m: SpawnerReply) => this.onReply(child, m));
    child.on('error', () => this.lost(child, 'could not start or talk to it'));
    // What it sent before it went (a burst's last facts) is still in the channel when its exit is
    // seen: its actions fail only once the channel has closed, after every message was read.
    let exited: string | undefined;
    child.on('exit', (code, sig) => {
      exited = `it exited (${sig ?? code})`;
      if (child.connected) this.forget(child);
      else this.lost(child, exited);
    });
    child.on('disconnect', () => this.lost(child, exited ?? 'its channel closed'));
  }

  private onReply(child: ChildProcess, m: SpawnerReply): void {
    if (m.t === 'ready') {
      // A spawner already let go (closed, or replaced) serves nothing more.
      if (child !== this.child) return;
      this.ready = true;
      this.failedStarts = 0;
      for (const start of this.queued.splice(0)) start();
      return;
    }
    const p = this.pending.get(m.id);
    if (p === undefined) return;
    if (m.t === 'fact') p.onFact?.(m.fact, m.state);
    else if (m.t === 'burst_end') p.resolve(m.end);
    else if (m.t === 'done') p.resolve(m.result);
    else if (m.t === 'listed') p.resolve(m.files);
    else if (m.spawn !== undefined) p.reject(new SpawnError(m.message, m.spawn.reason, m.spawn.code));
    else p.reject(new Error(m.message));
  }

  /** The spawner is gone: its running actions fail, and a new one comes with the next action. */
  private lost(child: ChildProcess, why: string): void {
    this.forget(child);
    for (const p of [...this.pending.values()])
      if (p.child === child) p.reject(new Error(`the action spawner went away: ${why}`));
  }

  /**
   * No more requests to `child`: a new spawner comes with the next. One that ended before it was
   * up (killed as it started) is started again for what waits for it; after
   * {@link MAX_FAILED_STARTS} in a row the spawner cannot start here, and what waits, and all that
   * comes in the next {@link SPAWNER_RETRY_MS}, runs in the worker.
   */
  private forget(child: ChildProcess): void {
    if (this.child !== child) return;
    const wasUp = this.ready;
    this.child = undefined;
    this.ready = false;
    if (wasUp) return;
    this.failedStarts += 1;
    if (this.failedStarts >= MAX_FAILED_STARTS) {
      // start() sees `broken`: the requests run in the worker.
      this.brokenUntil = Date.now() + SPAWNER_RETRY_MS;
      for (const start of this.queued.splice(0)) start();
    } else if (this.queued.length > 0) this.ensureChild();
  }

  /** Keeps the worker alive only while actions run; lets the spawner go once idle long enough. */
  private settleIdle(): void {
    const child = this.child;
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.idle = undefined;
    if (child === undefined) return;
    const channel = child.channel as { ref?: () => void; unref?: () => void } | undefined;
    if (this.pending.size > 0) {
      child.ref();
      channel?.ref?.();
      return;
    }
    child.unref();
    channel?.unref?.();
    if (this.holds > 0) return;
    this.idle = setTimeout(() => this.close(), this.idleMs);
    this.idle.unref();
  }
}

/**
 * The spawner's entry: `LL_ACTION_SPAWNER_ENTRY` when set (the test tiers run this code from the
 * TypeScript sources and bundle the entry for it: tests/setup/action-spawner.ts), else the
 * compiled module beside this one when this code runs from dist/; undefined otherwise, and
 * actions then run in the worker itself.
 */
function spawnerEntry(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env.LL_ACTION_SPAWNER_ENTRY;
  if (given) return existsSync(given) ? given : undefined;
  const here = fileURLToPath(import.meta.url);
  if (!here.startsWith(join(PACKAGE_ROOT, 'dist'))) return undefined;
  const entry = join(PACKAGE_ROOT, 'dist', 'activities', 'spawner-main.js');
  return existsSync(entry) ? entry : undefined;
}

let shared: ActionSpawner | undefined;

/** This worker process's one spawner, unless `LL_ACTION_SPAWNER=0` or there is no compiled entry. */
function sharedSpawner(env: NodeJS.ProcessEnv): ActionSpawner | undefined {
  if (env.LL_ACTION_SPAWNER === '0') return undefined;
  const entry = spawnerEntry(env);
  if (entry === undefined) return undefined;
  shared ??= new ActionSpawner(entry);
  return shared;
}

/** Where a burst runs: this worker's spawner, unless there is none (then in the worker itself). */
export function burstSpawner(env: NodeJS.ProcessEnv = process.env): ActionSpawner | undefined {
  return sharedSpawner(env);
}

/**
 * How a shell action of its own activity starts: through the worker's spawner when it is up,
 * else in the worker (which starts the spawner for the next). A fork from the worker blocks its
 * main thread for a time that grows with its memory (5.7 ms per action measured in the transition
 * bench), and its workflow tasks and other runs' actions wait behind it.
 */
export function actionLaunch(env: NodeJS.ProcessEnv = process.env): Launch {
  return sharedSpawner(env)?.launchWhenReady ?? runProcess;
}

/** Keeps this worker's spawner while the worker runs an action itself ({@link ActionSpawner.hold}); returns the release. */
export function spawnerHold(env: NodeJS.ProcessEnv = process.env): () => () => void {
  const spawner = sharedSpawner(env);
  return spawner ? () => spawner.hold() : () => () => undefined;
}

/**
 * How a checkout is listed ahead of a guarded action (activities/listing-ahead.ts): by the
 * worker's spawner when it is up; else not at all (undefined), since a listing forked from the
 * worker holds its main thread.
 */
export function aheadLister(
  env: NodeJS.ProcessEnv = process.env,
): (cwd: string) => Promise<string[] | undefined> | undefined {
  return (cwd) => {
    const spawner = sharedSpawner(env);
    return spawner?.up ? spawner.listFiles(cwd) : undefined;
  };
}

/** How `tamper_guard:` lists a checkout's files: through the worker's spawner when it is up, else here. */
export function checkoutLister(env: NodeJS.ProcessEnv = process.env): ListFiles {
  return sharedSpawner(env)?.listFiles ?? listCheckoutFiles;
}

/**
 * The pid of this worker's spawner while it runs (benchmarks: its CPU is part of a quick action's cost).
 * @public read by bench/transitions.mjs from dist/ (an import the dead-code check cannot follow)
 */
export function quickSpawnerPid(): number | undefined {
  return shared?.pid;
}
