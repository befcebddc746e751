/**
 * `ll-loop answer`: the answer sent to the run as its `answerHuman` update. A JSON answer is
 * checked against the state's schema here first (ajv, the project's JSON Schema validator, does
 * not run in the workflow sandbox; the workflow re-checks its shape). Every refusal — by this
 * client or by the run's validator — is one line with a fix, and changes nothing in the run.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type Connection } from '@temporalio/client';
import type { HumanReply } from '../../fsm/human.js';
import { schemaErrors } from '../../loader/json-schema.js';
import { answerHumanUpdate, type HumanAnswerAck } from '../../workflows/definitions.js';
import type { ProjectScope } from '../runs/find-runs.js';
import { closedResult, queryStatus } from '../runs/run-target.js';
import { outcomeOf } from '../../fsm/run/outcome.js';
import { answerer } from './answerer.js';
import { answerTarget } from './find-waiting.js';
import { AnswerRefusedError, NoAnswerFromRunError } from './human-errors.js';

/** How long the run may take to answer its status query (its worker may be coming back). */
const STATUS_WAIT_MS = 15_000;

export interface AnswerReport extends HumanAnswerAck {
  run: string;
  by: string;
}

export async function answerRun(
  session: { client: Client; connection: Connection },
  target: string,
  reply: HumanReply,
  project: ProjectScope,
): Promise<AnswerReport> {
  const { client, connection } = session;
  const run = await answerTarget(client, target, project);
  const handle = client.workflow.getHandle(run.id);
  const status = await queryStatus(connection, handle, STATUS_WAIT_MS);
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
