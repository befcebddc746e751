/**
 * Continuing a run that waits on a handoff (`on_handoff: pause`): `ll-loop resume` sends the
 * workflow's `resumeHandoff` update, which the workflow validates (it refuses a run that is not
 * waiting on one), and then follows the run as for any open run.
 */
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { resumeHandoffUpdate, statusQuery } from '../../workflows/definitions.js';

/**
 * When run `id` waits on a handoff, tell it to continue; the state that runs again, or undefined
 * when it waits on none. The status is asked first, so a run that does not wait is left alone.
 */
export async function continueHandoff(
  client: Client,
  id: string,
): Promise<{ state: string; payload: string } | undefined> {
  const handle = client.workflow.getHandle(id);
  const status = await handle.query(statusQuery);
  if (status.phase !== 'handoff' || status.handoff === undefined) return undefined;
  try {
    const { state } = await handle.executeUpdate(resumeHandoffUpdate);
    return { state, payload: status.handoff.payload };
  } catch (err) {
    // Refused: it stopped waiting between the question and the update (continued by another resume, or stopped).
    if (err instanceof WorkflowUpdateFailedError) return undefined;
    throw err;
  }
}
