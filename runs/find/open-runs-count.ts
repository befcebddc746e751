/**
 * How many runs are open on a Temporal server: what `ll-loop server stop` says is left on the
 * server it stops (they are kept in its data and go on when it runs again).
 */
import { Client, Connection } from '@temporalio/client';
import { LOOP_WORKFLOW_TYPE } from '../../workflows/definitions.js';

const CONNECT_TIMEOUT_MS = 3_000;

/** The open runs (sub-loops not counted: they go with their run) at `address`; undefined when it does not answer. */
export async function countOpenRuns(address: string): Promise<number | undefined> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: CONNECT_TIMEOUT_MS });
    const client = new Client({ connection });
    let open = 0;
    const query = `WorkflowType = '${LOOP_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'`;
    for await (const run of client.workflow.list({ query })) if (!run.parentExecution) open += 1;
    return open;
  } catch {
    return undefined;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}
