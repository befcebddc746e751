/**
 * ll-loop's workers collect no workflow stack traces (worker/workflow-stack-traces.ts): the SDK
 * installs neither its promise hook nor its stack rewriting, and a run asked for its stack says
 * so. Both rest on fields of the SDK's internals; this fails if the SDK stops reading them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stackTraceQuery } from '@temporalio/workflow';
import { afterAll, expect, it } from 'vitest';
import { statusQuery } from '../../workflows/definitions.js';
import { waitFor } from '../support/processes.js';
import { closeTemporal, definition, project, runLoop, temporal } from './harness.js';

afterAll(closeTemporal);

it('a running loop answers the stack-trace query with "not enabled", and no SDK hook rewrites stacks', async () => {
  const before = Error.prepareStackTrace;
  const p = project();
  const { client } = await temporal();
  let answer: unknown;
  const run = await runLoop(
    definition({
      name: 'no-stack-traces',
      initial: 'wait',
      states: {
        wait: { action: 'while [ ! -f go ]; do sleep 0.05; done', next: 'done' },
        done: { terminal: true },
      },
    }),
    {
      cwd: p.cwd,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        await waitFor('the run to answer queries', () =>
          handle.query(statusQuery).then(
            () => true,
            () => false,
          ),
        );
        answer = await handle.query(stackTraceQuery).catch((e: unknown) => e);
        writeFileSync(join(p.cwd, 'go'), '');
      },
    },
  );
  expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
  expect(answer).toBeInstanceOf(Error);
  expect(String((answer as Error).message)).toMatch(/Workflow stack traces are not enabled on this worker/);
  // The SDK installs its stack rewriting together with the promise hook: neither was installed.
  expect(Error.prepareStackTrace).toBe(before);
});
