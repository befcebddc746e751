/**
 * A run's side of its human states: the `answerHuman` update (validated before it is accepted,
 * so a refused answer changes nothing) and the durable wait of the `await_human` effect — the
 * answer raced with a durable timer at the state's deadline. The first accepted answer wins; the
 * core records it (fsm/run/on-human.ts).
 */
import { condition, setHandler } from '@temporalio/workflow';
import { answerCommand, humanEndedText, jsonTypeMismatch, replyMismatch, replyVerdict } from '../fsm/human.js';
import type { RunEvent, Snapshot, WorkEffect } from '../fsm/run/snapshot.js';
import type { LoopDefinition } from '../fsm/schema.js';
import { notifyActivity } from './activity-proxies.js';
import { answerHumanUpdate, type HumanAnswerRequest } from './definitions.js';
import type { Placement } from './placement.js';

type AwaitHuman = Extract<WorkEffect, { type: 'await_human' }>;

export class HumanDesk {
  /** The accepted answer the wait has not taken yet. */
  private accepted: (HumanAnswerRequest & { at_ms: number }) | undefined;

  constructor(
    private readonly def: LoopDefinition,
    private readonly runId: string,
    private readonly snapshot: () => Snapshot,
    /** The run's `approvalEdit` rule (RunRules): handed to the core with each answer. */
    private readonly approvalEdit = false,
  ) {
    setHandler(
      answerHumanUpdate,
      (request) => {
        this.accepted = { ...request, at_ms: Date.now() };
        return { state: this.snapshot().current, verdict: replyVerdict(request.reply) };
      },
      { validator: (request) => this.refusal(request) },
    );
  }

  /** Throws the reason an answer is refused (the validator). */
  private refusal(request: HumanAnswerRequest): void {
    const snap = this.snapshot();
    const wait = snap.status === 'running' && snap.phase === 'human' ? snap.human : undefined;
    if (this.accepted !== undefined) {
      const first = this.accepted;
      throw new Error(
        `run ${this.runId} was already answered in state "${wait?.state ?? snap.current}" by ${first.by} at ${iso(first.at_ms)}; the first answer wins`,
      );
    }
    const steer = snap.status === 'running' ? snap.steer : undefined;
    if (wait !== undefined && steer !== undefined)
      throw new Error(
        `run ${this.runId} no longer waits in state "${wait.state}": it was steered to "${steer.to}" by ${steer.by} at ${iso(steer.at_ms)}`,
      );
    if (
      wait === undefined ||
      (request.state !== undefined && request.state === snap.humanEnded?.state && request.state !== wait.state)
    )
      throw new Error(this.notWaiting(snap, request.state));
    if (request.state !== undefined && request.state !== wait.state)
      throw new Error(`run ${this.runId} waits in state "${wait.state}", not "${request.state}"`);
    const state = this.def.states[wait.state];
    if (state === undefined) throw new Error(`run ${this.runId}: state "${wait.state}" is not in its loop`);
    const mismatch = replyMismatch(state, request.reply);
    if (mismatch !== undefined) throw new Error(mismatch);
    // The full JSON Schema check is the client's (ajv cannot run in the sandbox); its shape is checked here.
    if (request.reply.kind === 'json') {
      const wrong = jsonTypeMismatch(state.schema, request.reply.value);
      if (wrong !== undefined) throw new Error(wrong);
    }
    if (wait.deadline_ms !== undefined && Date.now() >= wait.deadline_ms)
      throw new Error(
        `the deadline of state "${wait.state}" passed at ${iso(wait.deadline_ms)}; the run goes on by its on_timeout route`,
      );
  }

  private notWaiting(snap: Snapshot, asked: string | undefined): string {
    // How the last wait ended is in the snapshot, so it outlasts continue-as-new and the run's end.
    const ended = snap.humanEnded;
    const where =
      snap.status === 'done'
        ? `it has ended in state "${snap.current}" (${snap.outcome.terminated_by})`
        : `it is now in state "${snap.current}"`;
    if (ended !== undefined && (asked === undefined || asked === ended.state))
      return `${humanEndedText(this.runId, ended)}; ${where}`;
    return `run ${this.runId} is not waiting for an answer: ${where} (phase ${snap.phase})`;
  }

  /** Carry out `await_human`: tell someone, then wait for the answer or the deadline. */
  async wait(work: AwaitHuman, placement: Placement): Promise<RunEvent> {
    const state = this.def.states[work.state];
    const answer = state ? answerCommand(this.runId, state) : `ll-loop answer ${this.runId}`;
    // The hook runs beside the wait; its failure is its own (reported by the activity, never the run's).
    void placement
      .run((place) =>
        notifyActivity(
          work.state,
          placement.activityOptions(),
        )({
          ...(work.notify === undefined ? {} : { command: work.notify }),
          runId: this.runId,
          state: work.state,
          prompt: work.prompt,
          answer,
          cwd: place.cwd,
        }),
      )
      .catch(() => undefined);
    // A steer lets the run go at once (fsm/run/control.ts): the wait ends without an answer.
    const steered = () => {
      const snap = this.snapshot();
      return snap.status === 'running' ? snap.steer : undefined;
    };
    const answered = () => this.accepted !== undefined;
    const settled = () => answered() || steered() !== undefined;
    if (work.deadline_ms === undefined) await condition(settled);
    else if (!(await condition(settled, Math.max(1, work.deadline_ms - Date.now())))) {
      return { type: 'human_timeout', now: Date.now() };
    }
    const steer = steered();
    if (!answered() && steer !== undefined) {
      return { type: 'released', now: Date.now() };
    }
    const got = this.accepted!;
    this.accepted = undefined;
    return {
      type: 'human_answered',
      reply: got.reply,
      by: got.by,
      now: Date.now(),
      ...(this.approvalEdit ? { approvalEdit: true as const } : {}),
    };
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
