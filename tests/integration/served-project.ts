/**
 * A project with `.loops/`, served for a whole test file by a loop worker on a task queue of the
 * file's own (so no other test's worker takes its runs), with the CLI pointed at the test server
 * (TEMPORAL_ADDRESS, restored afterwards). `cwd` is the project's directory, once started.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, inject } from 'vitest';
import { createLoopWorker } from '../../worker/create-worker.js';
import { closeTemporal, project, temporal } from './harness.js';

export function useServedProject(taskQueue: string): { readonly cwd: string } {
  let cwd: string | undefined;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  const savedAddress = process.env.TEMPORAL_ADDRESS;
  beforeAll(async () => {
    process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
    cwd = project().cwd;
    mkdirSync(join(cwd, '.loops'));
    const { native } = await temporal();
    ({ worker } = await createLoopWorker({ connection: native, taskQueue }));
    running = worker.run();
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await closeTemporal();
    if (savedAddress === undefined) delete process.env.TEMPORAL_ADDRESS;
    else process.env.TEMPORAL_ADDRESS = savedAddress;
  });
  return {
    get cwd() {
      if (cwd === undefined) throw new Error('the served project exists only while the tests of its file run');
      return cwd;
    },
  };
}
