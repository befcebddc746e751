/**
 * How a running loop shows from outside: the `status` query's answer, the Web UI's current
 * details, the state the worker writes to the run's files, and the `LoopState`/`LoopStatus`
 * search attributes. All of it is read from the snapshot; nothing here decides anything.
 */
import { proxySinks, setCurrentDetails, upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import { outcomeOf, type LoopOutcome } from '../fsm/run/outcome.js';
import type { RateLimitPause, Snapshot } from '../fsm/run/snapshot.js';
import type { LoopDefinition } from '../fsm/schema.js';
import { budgetDetails, budgetStatus } from './budget-status.js';
import { answerCommand } from '../fsm/human.js';
import type { FanoutStatus, LoopSinks, LoopStatus, LoopWorkflowInput } from './definitions.js';

const { loopEvents } = proxySinks<LoopSinks>();

/**
 * A reporter of the run's place: each call publishes the snapshot's state, pass and phase when one
 * of them changed since the last call (the details, the state file, the search attributes).
 */
export function statusReporter(
  def: LoopDefinition,
  input: LoopWorkflowInput,
  instanceId: string,
  current: () => Snapshot,
): () => void {
  let lastReported = '';
  let lastQuestion = '';
  return () => {
    const snapshot = current();
    // The question a waiting run asks, in its memo: `ll-loop inbox` lists every waiting run with
    // one visibility query instead of a status query per run. Written only when it changes, so a
    // run that never waits for a person records nothing new.
    const question = humanStatus(def, snapshot, instanceId).human;
    const questionKey = question ? `${question.state}@${question.since}` : '';
    if (questionKey !== lastQuestion) {
      lastQuestion = questionKey;
      // Without the JSON Schema (it can be large; `ll-loop answer` reads it from the status query).
      const { schema: _schema, ...shown } = question ?? {};
      upsertMemo({ human: question ? shown : null });
    }
    // A person's pause or steer changes what the run shows (absent from older runs: same key).
    const person =
      snapshot.pause || snapshot.steer ? `/${snapshot.pause?.since_ms ?? ''}/${snapshot.steer?.to ?? ''}` : '';
    const key = `${snapshot.current}/${snapshot.iteration}/${snapshot.phase}${person}`;
    if (key === lastReported) return;
    lastReported = key;
    setCurrentDetails(detailsOf(def, snapshot, instanceId));
    // The snapshot once, not beside copies of its parts: the worker shapes the state file.
    loopEvents.state({ loop: def.name, snapshot });
    if (input.options.searchAttributes) {
      upsertSearchAttributes({
        LoopState: [snapshot.current],
        LoopStatus: [loopStatusOf(snapshot)],
      });
    }
  };
}

/**
 * The Web UI's current details while a parallel state runs: the run's own, then the fan-out's
 * counts and running items ("fix_all: 37/100 done (3 failed), 4 running"). Details are not a
 * command (nothing is recorded), so they follow each item without touching the history.
 */
export function showFanout(def: LoopDefinition, snapshot: Snapshot, instanceId: string, fanout: FanoutStatus): void {
  const failed = fanout.failed > 0 ? ` (${fanout.failed} failed)` : '';
  const running = fanout.running
    .slice(0, 10)
    .map((r) => `- item ${r.index}: \`${r.run_id}\``)
    .join('\n');
  const more = fanout.running.length > 10 ? `\n- … and ${fanout.running.length - 10} more` : '';
  const waiting = fanout.waiting?.length ? `, ${fanout.waiting.length} waiting for a scope` : '';
  setCurrentDetails(
    `${detailsOf(def, snapshot, instanceId)}\n\n**${fanout.state}**: ${fanout.done}/${fanout.total} done${failed}, ` +
      `${fanout.running.length} running${waiting}${running ? `\n\n${running}${more}` : ''}`,
  );
}

/** The Web UI's current details: state, pass, phase, and what the phase waits for. */
function detailsOf(def: LoopDefinition, snapshot: Snapshot, instanceId: string): string {
  const verdict = snapshot.result ? ` · last verdict ${snapshot.result.verdict}` : '';
  const spend = budgetDetails(def, snapshot);
  const paused =
    snapshot.phase === 'rate_limited' && snapshot.rateLimit
      ? ` until ${new Date(snapshot.rateLimit.resumes_at_ms).toISOString()} (${snapshot.rateLimit.kind.replace('_', ' ')}: ${snapshot.rateLimit.message})`
      : snapshot.phase === 'handoff'
        ? ` · waiting for \`ll-loop resume ${instanceId}\``
        : snapshot.phase === 'human'
          ? humanDetails(def, snapshot, instanceId)
          : '';
  const personal = personDetails(snapshot, instanceId);
  return `**${snapshot.current}** · pass ${snapshot.iteration}/${def.max_iterations} · ${snapshot.phase}${paused}${personal}${verdict}${spend}`;
}

/** What the Web UI's details add for a run a person paused or steered. */
function personDetails(snapshot: Snapshot, instanceId: string): string {
  if (snapshot.status !== 'running') return '';
  const parts: string[] = [];
  if (snapshot.pause)
    parts.push(
      ` · paused by ${snapshot.pause.by} since ${new Date(snapshot.pause.since_ms).toISOString()}` +
        (snapshot.phase === 'paused' ? `, before ${snapshot.held?.name ?? '?'}` : ', once its action ends') +
        ` · \`ll-loop unpause ${instanceId}\``,
    );
  if (snapshot.steer) parts.push(` · steered to ${snapshot.steer.to} by ${snapshot.steer.by}`);
  return parts.join('');
}

/**
 * The `LoopStatus` search attribute: `running`, then the outcome (runs of 0.3.0 and older wrote
 * `done`; closed ones still show it); `rate_limited` while paused by one; `paused` while a run waits for a person to let it go on — on
 * a handoff (`ll-loop resume`) or holding after `ll-loop pause` (status and details tell which);
 * `waiting` while a human state waits for a person's answer (only runs with human states have that
 * phase, so no earlier history shows it).
 */
function loopStatusOf(snapshot: Snapshot): LoopOutcome | 'rate_limited' | 'paused' | 'waiting' {
  if (snapshot.status === 'running')
    return snapshot.phase === 'rate_limited'
      ? 'rate_limited'
      : snapshot.phase === 'handoff' || snapshot.phase === 'paused'
        ? 'paused'
        : snapshot.phase === 'human'
          ? 'waiting'
          : 'running';
  return outcomeOf(snapshot.outcome);
}

export function statusOf(def: LoopDefinition, snapshot: Snapshot, runId: string): LoopStatus {
  return {
    loop: def.name,
    state: snapshot.current,
    phase: snapshot.phase,
    iteration: snapshot.iteration,
    max_iterations: def.max_iterations,
    steps: snapshot.steps,
    last_verdict: snapshot.result?.verdict ?? null,
    started_at: snapshot.startedAt,
    started_at_ms: snapshot.startedAtMs,
    captured: Object.keys(snapshot.captured),
    result: snapshot.status === 'done' ? snapshot.outcome : null,
    semantics: snapshot.semantics,
    ...budgetStatus(def, snapshot),
    ...(snapshot.phase === 'rate_limited' && snapshot.rateLimit
      ? { rate_limited: rateLimitedStatus(snapshot.rateLimit) }
      : {}),
    ...(snapshot.status === 'running' && snapshot.pause
      ? {
          paused: {
            by: snapshot.pause.by,
            since: new Date(snapshot.pause.since_ms).toISOString(),
            holding: snapshot.phase === 'paused',
            ...(snapshot.held ? { next: snapshot.held.name } : {}),
            unpause: `ll-loop unpause ${runId}`,
          },
        }
      : {}),
    ...(snapshot.status === 'running' && snapshot.steer
      ? {
          steer: {
            to: snapshot.steer.to,
            by: snapshot.steer.by,
            ...(snapshot.steer.note === undefined ? {} : { note: snapshot.steer.note }),
            ...(snapshot.steer.context ? { context: Object.keys(snapshot.steer.context) } : {}),
          },
        }
      : {}),
    ...humanStatus(def, snapshot, runId),
    ...(snapshot.phase === 'handoff' && snapshot.handoff
      ? {
          handoff: {
            state: snapshot.handoff.state,
            payload: snapshot.handoff.payload,
            since: new Date(snapshot.handoff.since_ms).toISOString(),
            resume: `ll-loop resume ${runId}`,
          },
        }
      : {}),
  };
}

/** The Web UI's words for a run waiting for a person: the question and the command that answers. */
function humanDetails(def: LoopDefinition, snapshot: Snapshot, runId: string): string {
  const wait = snapshot.human;
  const state = wait ? def.states[wait.state] : undefined;
  if (!wait || !state) return '';
  const deadline = wait.deadline_ms === undefined ? '' : ` (deadline ${new Date(wait.deadline_ms).toISOString()})`;
  return ` · waiting for a person since ${new Date(wait.since_ms).toISOString()}${deadline}\n\n> ${wait.prompt.replaceAll('\n', '\n> ')}\n\nanswer: \`${answerCommand(runId, state)}\`\n\n`;
}

/** The `human` part of the status: the question, since when, the deadline, the command that answers. */
function humanStatus(def: LoopDefinition, snapshot: Snapshot, runId: string): Pick<LoopStatus, 'human'> {
  const wait = snapshot.phase === 'human' ? snapshot.human : undefined;
  const state = wait ? def.states[wait.state] : undefined;
  if (!wait || !state) return {};
  return {
    human: {
      state: wait.state,
      prompt: wait.prompt,
      ask: wait.ask,
      ...(wait.options ? { options: wait.options } : {}),
      ...(state.schema && wait.ask === 'json' ? { schema: state.schema } : {}),
      since: new Date(wait.since_ms).toISOString(),
      ...(wait.deadline_ms === undefined ? {} : { deadline: new Date(wait.deadline_ms).toISOString() }),
      answer: answerCommand(runId, state),
    },
  };
}

function rateLimitedStatus(p: RateLimitPause): NonNullable<LoopStatus['rate_limited']> {
  return {
    source: p.source,
    kind: p.kind,
    message: p.message,
    since: new Date(p.since_ms).toISOString(),
    resumes_at: new Date(p.resumes_at_ms).toISOString(),
    pauses: p.pauses,
  };
}
