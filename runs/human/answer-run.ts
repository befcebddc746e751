/**
 * `ll-loop answer`: the answer sent to the run as its `answerHuman` update. A JSON answer is
 * checked against the state's schema here first (ajv, the project's JSON Schema validator, does
 * not run in the workflow sandbox; the workflow re-checks its shape). Every refusal — by this
 * client or by the run's validator — is one line with a fix, and changes nothing in the run.
 */
import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type Connection,
  type WorkflowHandle,
} from '@temporalio/client';
import type { HumanReply } from '../../fsm/human.js';
import { schemaErrors } from '../../loader/json-schema.js';
import { answerHumanUpdate, type HumanAnswerAck } from '../../workflows/definitions.js';
import type { ProjectScope, RunSummary } from '../find/find-runs.js';
import { closedResult, queryStatus } from '../find/run-target.js';
import { outcomeOf } from '../../fsm/run/outcome.js';
import { answerer } from './answerer.js';
import { answerTarget } from './find-waiting.js';
import { AnswerRefusedError, NoAnswerFromRunError } from './human-errors.js';

/** How long the run may take to answer its status query (its worker may be coming back). */
const STATUS_WAIT_MS = 15_000;
/**
 * Each ask of the status gives up after this and asks again. A query Temporal sent to the sticky
 * queue of a worker that has died waits there for its schedule-to-start timeout (10 s), even once
 * the worker that took the checkout over has pointed the run back at the checkout's queue
 * (worker/fail-over.ts forgetStickyQueues); asked again, it goes there and is answered at once.
 */
const STATUS_ASK_MS = 2_000;
const STATUS_PAUSE_MS = 200;

/** The run's status within `ms`, asked in turns of STATUS_ASK_MS; null when it never answered. */
async function statusWithin(connection: Connection, handle: WorkflowHandle, ms: number) {
  const until = Date.now() + ms;
  for (;;) {
    const asked = Date.now();
    const status = await queryStatus(connection, handle, Math.max(1, Math.min(STATUS_ASK_MS, until - asked)));
    if (status !== null || Date.now() >= until) return status;
    // Refused at once (no poller seen yet: the worker is still starting): not a busy loop.
    if (Date.now() - asked < STATUS_PAUSE_MS) await new Promise((r) => setTimeout(r, STATUS_PAUSE_MS));
  }
}

export interface AnswerReport extends HumanAnswerAck {
  run: string;
  by: string;
}

export async function answerRun(
  session: { client: Client; connection: Connection },
  target: string,
  reply: HumanReply,
  project: ProjectScope,
  /** Told the run found before it is asked (the command brings its checkout's worker back). */
  onFound: (run: RunSummary) => void = () => undefined,
): Promise<AnswerReport> {
  const { client, connection } = session;
  const run = await answerTarget(client, target, project);
  onFound(run);
  const handle = client.workflow.getHandle(run.id);
  const status = await statusWithin(connection, handle, STATUS_WAIT_MS);
  if (status === null) throw new NoAnswerFromRunError(run.id);
  const human = status.human;
  if (human?.schema !== undefined && reply.kind === 'json') {
    const errors = schemaErrors(human.schema, reply.value);
    if (errors.length > 0)
      throw new AnswerRefusedError(
        `the answer does not match the schema of state "${human.state}": ${errors.slice(0, 3).join('; ')}`,
        `answer with JSON that matches it; ll-loop status ${run.id} shows the question`,
      );
  }
  const by = answerer();
  try {
    const ack = await handle.executeUpdate(answerHumanUpdate, {
      args: [{ reply, by, ...(human ? { state: human.state } : {}) }],
    });
    return { run: run.id, by, ...ack };
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) {
      const why = err.cause?.message ?? err.message;
      throw new AnswerRefusedError(
        why,
        human && !/already answered|no longer waits|not waiting|deadline/.test(why)
          ? `answer ${human.answer.replace(/^ll-loop answer \S+ /, '')}; ll-loop status ${run.id} shows the question`
          : `see where it is with ll-loop status ${run.id}; ll-loop inbox lists the runs waiting for you`,
      );
    }
    if (err instanceof WorkflowNotFoundError) {
      // It ended between the status query and the update: say where.
      const result = await closedResult(connection, client.workflow.getHandle(run.id)).catch(() => undefined);
      const where = result ? ` in state "${result.final_state}" (${outcomeOf(result)})` : '';
      throw new AnswerRefusedError(
        `run ${run.id} is not waiting for an answer: it has finished${where}`,
        `see how it ended with ll-loop status ${run.id}`,
      );
    }
    throw err;
  }
}
