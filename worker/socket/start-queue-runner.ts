/**
 * The checkout worker's queue of `ll-loop run --background` starts (host/start-queue.ts holds it
 * on disk). A start handed over by the bin's early start is accepted at once: its run id decided
 * here (the loop's name and the command's time, `-2`, `-3`… past the ids this worker gave, queued
 * or failed, those with an environment file and those the server has), its environment file written, its entry synced
 * to disk; then the command is answered and exits. The runs are started from the queue in order,
 * {@link IN_FLIGHT} at a time, each on the worker's client exactly as a start for `ll-loop run`
 * is (start-requested.ts: the same memo, lock precheck, payload checks), with its id fixed. The
 * scope precheck is made before the start is accepted too, so a busy scope is the command's error,
 * and so is a scope a start made through this worker a moment before asks for while its lock has
 * not answered it yet (unanswered-starts.ts).
 *
 * - A worker killed before a queued run started leaves its entry; the next worker of the
 *   checkout starts it. One killed after the start, before the entry went, finds the id taken by
 *   a run whose memo carries the entry's `queued_at`: its own, so the start counts as made.
 * - An unreachable server is waited out (the start is tried again, backing off); every other
 *   failure is final: recorded as a failed start (what `status <id>` and `list --failed` show),
 *   the run's environment file removed.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Checkout } from '../../host/checkout.js';
import { removeRunEnv, runEnvFor, serverKey, writeRunEnv } from '../../host/run-env.js';
import {
  dropQueued,
  queuedStarts,
  queueStart,
  recordFailedStart,
  startKnown,
  type QueuedStart,
} from '../../host/start-queue.js';
import { CliError } from '../../errors/errors.js';
import { someCause } from '../../errors/error-causes.js';
import { EXIT } from '../../errors/exit-codes.js';
import { GRPC } from '../../errors/grpc-status.js';
import { claimAttempt, withSuffix } from '../../runs/start/instance-id.js';
import { lockOf, startRequested } from '../../runs/start/start-requested.js';
import { precheckScopes } from '../../runs/scopes/scope-lock.js';
import { bounded } from '../../runs/find/run-target.js';
import type { WorkerStartRequest } from '../../runs/transport/schemas.js';
import type { Session } from '../../temporal/session.js';
import { errorReply } from './start-error-reply.js';
import { UnansweredStarts, type StartTicket } from './unanswered-starts.js';

/** Starts made at once: enough to keep the server busy, few enough not to starve the runs. */
const IN_FLIGHT = 4;
/** The waits between tries of a start while the server is unreachable (the last repeats). */
const RETRY_MS = [500, 1_000, 2_000, 5_000, 10_000, 30_000];
/** How long the look for a taken id may take. */
const ID_LOOK_MS = 2_000;
/** As startLoopRun: past this many suffixes of one base, no id is free. */
const MAX_ID_TRIES = 1000;

interface Pending {
  start: QueuedStart;
  tries: number;
  notBefore: number;
  /** Counted among the starts its scope lock has not answered yet (unanswered-starts.ts). */
  ticket: StartTicket;
}

export class StartQueueRunner {
  private readonly pending: Pending[] = [];
  private running = 0;
  private open = true;
  private timer: NodeJS.Timeout | undefined;
  private readonly idleWaiters = new Set<() => void>();
  /** The starts made through this worker that their scope lock has not answered yet. */
  readonly unanswered: UnansweredStarts;

  constructor(
    private readonly o: {
      checkout: Checkout;
      session: Pick<Session, 'client' | 'connection' | 'endpoint'>;
      /** A client on the worker's own connection: eager starts. */
      starter: Client | undefined;
      log: (line: string) => void;
    },
  ) {
    this.unanswered = new UnansweredStarts(o.session.client);
    // What a predecessor accepted and did not start (ahead of any start asked from now on).
    for (const start of queuedStarts(o.checkout.root)) {
      const ticket = this.unanswered.reserve(start.instance_id, this.lockOrNone(start), false);
      this.pending.push({ start, tries: 0, notBefore: 0, ticket });
    }
    if (this.pending.length) o.log(`${this.pending.length} queued start(s) left by an earlier worker: starting them`);
    this.kick();
  }

  /** A queued start's lock request; undefined for none, or one it cannot make (its start fails with why). */
  private lockOrNone(start: QueuedStart) {
    try {
      return lockOf(start, this.o.checkout);
    } catch {
      return undefined;
    }
  }

  /** Starts accepted and not yet made (or failed). */
  get size(): number {
    return this.pending.length + this.running;
  }

  /**
   * Accept `request`'s run; returns its id once the start is queued for good. A run its scope lock
   * would refuse now (the precheck: one describe of the lock workflow, bounded) is refused here
   * with its ScopeBusyError, so the command that asked reports it (exit 8), as is one behind a
   * start made through this worker that the lock has not answered yet; only a denial the worker
   * cannot see coming (a start made elsewhere at the same moment) is left to `status` and
   * `list --failed`.
   */
  async accept(request: WorkerStartRequest): Promise<string> {
    const lock = lockOf(request, this.o.checkout);
    const precheck = async () => {
      if (lock) await precheckScopes(this.o.session.client, lock);
    };
    await precheck();
    // From the count to the queueing nothing waits: two starts asked at once are counted one by one.
    const ticket = await this.unanswered.reserveAfterLook(request.id_base, lock, precheck);
    const root = this.o.checkout.root;
    const { address, namespace } = this.o.session.endpoint;
    const server = serverKey(address, namespace);
    for (let tries = 1; tries <= MAX_ID_TRIES; tries += 1) {
      const id = withSuffix(request.id_base, claimAttempt(request.id_base));
      if (startKnown(root, id)) continue;
      // Taken by a run another process started in this second (the command that started this
      // worker, say): the id is promised to the command now, so it must be free on the server.
      if (await this.takenOnServer(id)) continue;
      // Only where no file is: one there is the environment of a run that has this id.
      if (!writeRunEnv(id, request.env, { exclusive: true, server })) continue;
      ticket.rename(id);
      const start: QueuedStart = {
        instance_id: id,
        queued_at: new Date().toISOString(),
        definition: request.definition,
        file: request.file,
        cwd: request.cwd,
        data_context: request.data_context,
        lock: request.lock,
      };
      try {
        queueStart(root, start);
      } catch (err) {
        removeRunEnv(id);
        ticket.drop();
        throw err;
      }
      this.pending.push({ start, tries: 0, notBefore: 0, ticket });
      this.kick();
      return id;
    }
    ticket.drop();
    throw new CliError(
      `no free run id for ${request.definition.name}: ${request.id_base} and ${MAX_ID_TRIES - 1} of its suffixes are taken`,
      'run it again: the next second has ids of its own',
      EXIT.infrastructure,
    );
  }

  /** Whether a run with this id exists on the server (a look bounded to 2 s; unknown counts as free: the start decides). */
  private async takenOnServer(id: string): Promise<boolean> {
    const { client } = this.o.session;
    try {
      await bounded(client, ID_LOOK_MS, () => client.workflow.getHandle(id).describe());
      return true;
    } catch {
      return false;
    }
  }

  /** Stop starting runs (the worker drains): what is still queued stays on disk for the next worker. */
  close(): void {
    this.open = false;
    clearTimeout(this.timer);
  }

  /** Resolves once no start is in flight, or after `timeoutMs`. */
  settled(timeoutMs: number): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.idleWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.idleWaiters.add(done);
    });
  }

  private kick(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.open) return;
    const now = Date.now();
    while (this.running < IN_FLIGHT) {
      const i = this.pending.findIndex((p) => p.notBefore <= now);
      if (i < 0) break;
      const [next] = this.pending.splice(i, 1);
      this.running += 1;
      void this.startOne(next!).finally(() => {
        this.running -= 1;
        if (this.running === 0) for (const wake of [...this.idleWaiters]) wake();
        this.kick();
      });
    }
    // A start waiting out an unreachable server: woken when its wait is over.
    const waiting = this.pending.filter((p) => p.notBefore > now);
    if (waiting.length && this.running < IN_FLIGHT) {
      const at = Math.min(...waiting.map((p) => p.notBefore));
      this.timer = setTimeout(() => this.kick(), at - now);
      this.timer.unref();
    }
  }

  private async startOne(p: Pending): Promise<void> {
    const { start } = p;
    const id = start.instance_id;
    const root = this.o.checkout.root;
    const env = runEnvFor(id);
    if (env === undefined) {
      p.ticket.drop();
      return this.failed(start, new CliError(`its environment file is gone (swept after a long wait)`));
    }
    try {
      await startRequested(
        {
          kind: 'start',
          code_id: '',
          address: '',
          root,
          definition: start.definition,
          file: start.file,
          cwd: start.cwd,
          id_base: id,
          env: env as Record<string, string>,
          data_context: start.data_context,
          lock: start.lock,
        },
        this.o.session,
        this.o.checkout,
        this.o.starter,
        { workflowId: id, memo: { queued_at: start.queued_at } },
      );
      this.o.log(`${id}: started for ll-loop run --background (queued ${Date.now() - Date.parse(start.queued_at)} ms)`);
      dropQueued(root, id);
      this.settle(p);
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError && (await this.isOurs(start))) {
        this.o.log(`${id}: had started before this worker took over its queued start`);
        this.settle(p);
        return dropQueued(root, id);
      }
      if (unreachable(err) && this.open) {
        const wait = RETRY_MS[Math.min(p.tries, RETRY_MS.length - 1)]!;
        this.o.log(`${id}: the server did not take the start (${(err as Error).message}); trying again in ${wait} ms`);
        this.pending.unshift({ ...p, tries: p.tries + 1, notBefore: Date.now() + wait });
        return;
      }
      p.ticket.drop();
      if (unreachable(err)) return; // draining: left on disk for the next worker
      this.failed(start, err);
    }
  }

  /**
   * Counted until its lock answers it. Denied its scopes all the same (a start made elsewhere at
   * the same moment): nobody follows it, so its environment file goes here (scopesSettled removes
   * it), not at the next sweep; status and list --failed show it.
   */
  private settle(p: Pending): void {
    const id = p.start.instance_id;
    void p.ticket.started(id).catch((err: unknown) => this.o.log(`${id}: ${(err as Error).message}`));
  }

  /** Whether the run that has the start's id is the one this queue started (its memo's mark). */
  private async isOurs(start: QueuedStart): Promise<boolean> {
    try {
      const d = await this.o.session.client.workflow.getHandle(start.instance_id).describe();
      return (d.memo as { queued_at?: unknown } | undefined)?.queued_at === start.queued_at;
    } catch {
      return false;
    }
  }

  private failed(start: QueuedStart, err: unknown): void {
    const taken = err instanceof WorkflowExecutionAlreadyStartedError;
    const reply = taken
      ? {
          message: `run id ${start.instance_id} was taken by another run before this one started`,
          fix: `start it again: ll-loop run ${start.file} --background`,
          exit_code: EXIT.runError,
        }
      : errorReply(err);
    const root = this.o.checkout.root;
    recordFailedStart(root, {
      instance_id: start.instance_id,
      loop: start.definition.name,
      cwd: start.cwd,
      queued_at: start.queued_at,
      failed_at: new Date().toISOString(),
      message: reply.message,
      ...(reply.fix ? { fix: reply.fix } : {}),
      exit_code: reply.exit_code,
    });
    removeRunEnv(start.instance_id);
    dropQueued(root, start.instance_id);
    this.o.log(`${start.instance_id}: its queued start failed: ${reply.message}`);
  }
}

/** The server did not answer (down, restarting): the start is tried again. */
function unreachable(err: unknown): boolean {
  return someCause(err, (e) => e.code === GRPC.unavailable || e.code === GRPC.deadlineExceeded);
}
