/**
 * An approval answered a plain `yes` on the real dev server: with the `approvalEdit` run rule (runs
 * of this release) `${captured.<state>.edit}` is the empty string and resolves; without it (runs of
 * older releases, which replay as they ran) there is no `edit` and the reference ends the run.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { answerHumanUpdate, statusQuery } from '../../workflows/definitions.js';
import { waitFor } from '../support/processes.js';
import { closeTemporal, definition, project, runLoop, temporal } from './harness.js';

afterAll(closeTemporal);

const reviewLoop = definition({
  name: 'approval-edit',
  initial: 'plan',
  states: {
    plan: { action: 'echo the plan', capture: 'plan', next: 'review' },
    review: {
      action_type: 'human',
      prompt: 'Apply ${captured.plan.output}?',
      timeout: 3600,
      on_yes: 'apply',
      on_no: 'park',
      on_edit: 'apply',
    },
    // The edit, empty or not, and a fallback when it is empty.
    apply: {
      action: 'echo "edit=[${captured.review.edit}] or [${captured.review.edit:-unedited}]"',
      capture: 'applied',
      next: 'done',
    },
    park: { terminal: true },
    done: { terminal: true },
  },
});

/** Once the run waits in `review`, answer a plain yes. */
async function yesOnceAsked(handle: WorkflowHandle): Promise<void> {
  await waitFor(
    'the run to wait in review',
    async () => (await handle.query(statusQuery)).human?.state === 'review',
    30_000,
  );
  await handle.executeUpdate(answerHumanUpdate, { args: [{ by: 'ann@test', reply: { kind: 'yes' } }] });
}

describe('an approval answered yes', () => {
  it('with approvalEdit a plain yes captures edit as the empty string: ${captured.review.edit} resolves', async () => {
    const p = project();
    const { client } = await temporal();
    const run = await runLoop(reviewLoop, {
      cwd: p.cwd,
      approvalEdit: true,
      onStarted: (id) => yesOnceAsked(client.workflow.getHandle(id)),
    });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(run.result.captured.review).toMatchObject({ answer: 'yes', edit: '' });
    expect(run.result.captured.applied?.output).toBe('edit=[] or [unedited]');
  });

  it('without approvalEdit (an older release) a plain yes captures no edit: ${captured.review.edit} ends the run', async () => {
    const p = project();
    const { client } = await temporal();
    const run = await runLoop(reviewLoop, {
      cwd: p.cwd,
      onStarted: (id) => yesOnceAsked(client.workflow.getHandle(id)),
    });
    expect(run.result.captured.review).not.toHaveProperty('edit');
    expect(run.result).toMatchObject({ final_state: 'apply' });
    expect(run.result.error).toContain('undefined variable ${captured.review.edit}');
  });
});
