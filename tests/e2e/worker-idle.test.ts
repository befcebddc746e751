/**
 * A checkout's worker started on demand exits once it has had nothing to do for LL_WORKER_IDLE_S
 * (worker/hosting/idle-exit.ts): never while a run of its queue is open, even one whose action
 * outlasts the idle time; and the next command starts it again.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workerLogPath } from '../../host/checkout.js';
import { useOwnServerProject } from '../support/own-server-project.js';
import { pidAlive, waitFor } from '../support/processes.js';

const project = useOwnServerProject('ll-loop-worker-idle-', { startServer: true });

/** The pids of the workers that served the checkout, in order, from the worker's log. */
function servedBy(): number[] {
  const log = readFileSync(workerLogPath(project.cwd), 'utf8');
  return [...log.matchAll(/worker pid (\d+) .* serves /g)].map((m) => Number(m[1]));
}

const IDLE = { LL_WORKER_IDLE_S: '1' };

describe('an idle checkout worker', () => {
  it('stays while a run is open, exits once idle, and the next command starts another', async () => {
    writeFileSync(
      join(project.cwd, '.loops', 'slow.yaml'),
      [
        'name: slow',
        'initial: wait',
        'states:',
        '  wait:',
        // Longer than the idle time several times over: the open run keeps the worker.
        '    action: "sleep 4; echo waited >> slow.log"',
        '    next: done',
        '  done:',
        '    terminal: true',
        '',
      ].join('\n'),
    );
    const first = await project.cli(['run', 'slow'], undefined, IDLE);
    expect(first.code, first.stderr).toBe(0);
    expect(readFileSync(join(project.cwd, 'slow.log'), 'utf8').trim()).toBe('waited');
    expect(servedBy()).toHaveLength(1);
    const pid = servedBy()[0]!;
    await waitFor('the idle worker to exit', () => !pidAlive(pid), 60_000);
    expect(readFileSync(workerLogPath(project.cwd), 'utf8')).toMatch(/draining \(idle for 1 s: no open run/);

    const second = await project.cli(['run', 'slow'], undefined, IDLE);
    expect(second.code, second.stderr).toBe(0);
    expect(readFileSync(join(project.cwd, 'slow.log'), 'utf8').trim().split('\n')).toEqual(['waited', 'waited']);
    // The second run had a worker of its own (which may be gone again by now: idle after 1 s).
    const pids = servedBy();
    expect(pids).toHaveLength(2);
    expect(pids[0]).toBe(pid);
    expect(pids[1]).not.toBe(pid);
  }, 180_000);
});
