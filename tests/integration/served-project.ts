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
  const served = useServedProjects(taskQueue, 1);
  return {
    get cwd() {
      return served.cwd(0);
    },
  };
}

/**
 * `count` projects served by one worker on `taskQueue` (as {@link useServedProject}): for tests of
 * what one project sees of another's runs on the same server.
 */
export function useServedProjects(taskQueue: string, count: number): { cwd(index: number): string } {
  const cwds: string[] = [];
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  const savedAddress = process.env.TEMPORAL_ADDRESS;
  beforeAll(async () => {
    process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
    for (let i = 0; i < count; i += 1) {
      const { cwd } = project();
      mkdirSync(join(cwd, '.loops'));
      cwds.push(cwd);
    }
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
    cwd(index: number): string {
      const cwd = cwds[index];
      if (cwd === undefined) throw new Error('the served projects exist only while the tests of their file run');
      return cwd;
    },
  };
}
