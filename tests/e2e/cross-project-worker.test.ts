/**
 * `answer`, `pause` and `unpause` by run id from another project, with the run's own checkout
 * worker gone (killed, or a reboot), through the built binary on an embedded dev server of this
 * file's own. A run id works from any project (docs/cli.md, "Naming a run"), as it does in the
 * run's own project, where any command brings the checkout's worker back: the command brings the
 * run's checkout worker back too, so the run takes the request, instead of waiting out its
 * timeout and failing with "no worker serves it now".
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useOwnServerProject } from '../support/own-server-project.js';
import { pidAlive, waitFor } from '../support/processes.js';
import { waitForRunEvent } from '../support/run-events.js';
import { workerPid } from '../support/worker-files.js';

const project = useOwnServerProject('ll-loop-e2e-cross-worker-', { startServer: true });
const elsewhere = mkdtempSync(join(tmpdir(), 'll-loop-e2e-cross-worker-other-'));
mkdirSync(join(elsewhere, '.loops'));
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

async function killWorker(): Promise<void> {
  const pid = workerPid(project.cwd);
  expect(pid).toBeDefined();
  process.kill(pid!, 'SIGKILL');
  await waitFor('the worker to be gone', () => !pidAlive(pid!), 10_000);
}

describe('a run id from another project, its worker gone', () => {
  it('pause, unpause and answer reach the run: its checkout worker is brought back', async () => {
    const cwd = project.cwd;
    writeFileSync(
      join(cwd, '.loops', 'ask.yaml'),
      `name: ask\ninitial: review\nstates:\n  review:\n    action_type: human\n    prompt: ship it?\n    timeout: 3600\n    on_yes: ship\n    on_no: done\n  ship:\n    action: "touch shipped.out"\n    next: done\n  done:\n    terminal: true\n`,
    );
    const started = await project.cli(['run', 'ask', '--background', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const id = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;
    await waitForRunEvent(cwd, id, 'human_wait');

    await killWorker();
    const paused = await project.cli(['pause', id], elsewhere);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toMatch(new RegExp(`^paused ${id} `));

    await killWorker();
    const unpaused = await project.cli(['unpause', id], elsewhere);
    expect(unpaused.code, unpaused.stderr).toBe(0);

    await killWorker();
    const answered = await project.cli(['answer', id, 'yes'], elsewhere);
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stdout).toMatch(new RegExp(`^answered ${id} in state review: yes`));
    await waitForRunEvent(cwd, id, 'loop_complete');
  }, 240_000);
});
