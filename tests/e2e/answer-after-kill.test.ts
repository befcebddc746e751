/**
 * `ll-loop answer` right after the checkout's worker was SIGKILLed, through the built binary on an
 * embedded dev server of this file's own. The dead worker's sticky queue would hold the run's
 * status query for its whole schedule-to-start timeout; the worker the command revives resets the
 * open runs' stickiness as it starts (worker/fail-over.ts), and `answer` asks again in short turns,
 * so the answer lands as soon as the new worker polls. The workers here keep a sticky timeout of
 * 60 s (`LL_WORKER_STICKY_S`): waiting it out would be past `answer`'s 15 s, so only the failover
 * lets the answer through, however slow the machine.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useOwnServerProject } from '../support/own-server-project.js';
import { pidAlive, waitFor } from '../support/processes.js';
import { waitForRunEvent } from '../support/run-events.js';

const project = useOwnServerProject('ll-loop-e2e-answer-kill-', { startServer: true });
const cli = (args: string[]) => project.cli(args, undefined, { LL_WORKER_STICKY_S: '60' });

describe('an answer right after the worker was killed', () => {
  it('is applied at once by the worker the command revives, not after the dead worker’s sticky timeout', async () => {
    const cwd = project.cwd;
    writeFileSync(
      join(cwd, '.loops', 'ask.yaml'),
      `name: ask\ninitial: review\nstates:\n  review:\n    action_type: human\n    prompt: ship it?\n    timeout: 3600\n    on_yes: ship\n    on_no: done\n  ship:\n    action: "touch shipped.out"\n    next: done\n  done:\n    terminal: true\n`,
    );
    const started = await cli(['run', 'ask', '--background', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const { instance_id: id, worker_pid: worker } = JSON.parse(started.stdout) as {
      instance_id: string;
      worker_pid: number;
    };
    await waitForRunEvent(cwd, id, 'human_wait');
    // The worker has the run in its cache and its sticky queue recorded: its status answers from there.
    const status = await cli(['status', id]);
    expect(status.stdout, status.stderr).toContain('ll-loop answer');

    process.kill(worker, 'SIGKILL');
    await waitFor('the worker to be gone', () => !pidAlive(worker), 10_000);

    const answered = await cli(['answer', id, 'yes']);
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stdout).toMatch(new RegExp(`^answered ${id} in state review: yes`));
    await waitForRunEvent(cwd, id, 'loop_complete');
  }, 120_000);
});
