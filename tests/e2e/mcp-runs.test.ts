/**
 * `ll-loop mcp` acting on runs, driven by the MCP SDK's own client over stdio (the built binary):
 * on the test run's dev server, inbox and answer, rerun, pause, unpause, steer and stop_run with
 * their refusals; on an embedded server of the file's own, start_run through the checkout's
 * worker (the default path), the run seeing the environment of `ll-loop mcp` and a secret it
 * prints kept out of every file of the project.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { filesUnder } from '../support/leak-scan.js';
import { call, completedStatus, definedEnv, mcpClients, ok, QUICK, textOf } from '../support/mcp-clients.js';
import { useOwnServerProject } from '../support/own-server-project.js';
import { waitFor } from '../support/processes.js';

const PREFIX = 'll-loop-e2e-mcp-runs-';
let cwd: string;
let env: Record<string, string>;
const mcp = mcpClients();

beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), PREFIX));
  mkdirSync(join(cwd, '.loops'));
  writeFileSync(join(cwd, '.loops', 'quick.yaml'), QUICK);
  env = {
    ...definedEnv(process.env),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    NO_COLOR: '1',
    LL_MCP_POLL_MS: '200',
  };
});

afterAll(() => mcp.closeAll());

describe('ll-loop mcp: acting on runs', () => {
  it('inbox and answer a waiting run, rerun it; pause, unpause, steer and stop_run a run', async () => {
    writeFileSync(
      join(cwd, '.loops', 'ask.yaml'),
      [
        'name: ask',
        'initial: review',
        'states:',
        '  review:',
        '    action_type: human',
        '    prompt: "Ship it?"',
        '    timeout: 3600',
        '    on_yes: shipped',
        '    on_no: done',
        '  shipped:',
        '    terminal: true',
        '  done:',
        '    terminal: true',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(cwd, '.loops', 'held.yaml'),
      [
        'name: held',
        'initial: wait',
        'states:',
        '  wait:',
        '    action: "while [ ! -f never ]; do sleep 0.05; done"',
        '    next: done',
        '  done:',
        '    terminal: true',
        '',
      ].join('\n'),
    );
    const client = await mcp.stdio({ cwd, env: { ...env, LL_USER: 'ann' } });
    const asking = (await ok(client, 'start_run', { loop: 'ask' })).run_id as string;
    let waiting: Array<{ run: string; ask: string }> = [];
    await waitFor(
      'the run in the inbox',
      async () => (waiting = (await ok(client, 'inbox', {})).waiting as typeof waiting).some((w) => w.run === asking),
      60_000,
      200,
    );
    expect(waiting.find((w) => w.run === asking)).toMatchObject({ run: asking, ask: 'approval' });
    const answered = await ok(client, 'answer', { run: asking, reply: 'yes' });
    expect(answered).toMatchObject({
      run: asking,
      state: 'review',
      verdict: 'yes',
      by: expect.stringContaining('@'),
    });
    const noText = await call(client, 'answer', { run: asking, reply: 'text' });
    expect(textOf(noText)).toContain('fix: add text');

    const held = (await ok(client, 'start_run', { loop: 'held' })).run_id as string;
    expect(await ok(client, 'pause', { run: held })).toMatchObject({ id: held, by: expect.stringMatching(/^ann@/) });
    const twice = await call(client, 'pause', { run: held });
    expect(twice.isError).toBe(true);
    expect(textOf(twice)).toContain(`fix: ll-loop unpause ${held}`);
    expect(await ok(client, 'unpause', { run: held })).toMatchObject({ id: held });
    const listed = (await ok(client, 'list_runs', {})).runs as Array<{ id: string }>;
    expect(listed.map((r) => r.id)).toContain(held);
    const typo = await call(client, 'steer', { run: held, to: 'dnoe' });
    expect(textOf(typo)).toContain('has no state "dnoe" (did you mean "done"?)');
    expect(await ok(client, 'steer', { run: held, to: 'done', note: 'enough' })).toMatchObject({ id: held });
    expect(await ok(client, 'stop_run', { run: held })).toMatchObject({ id: held, outcome: 'cancelled' });
    await waitFor(
      'the answered run to complete',
      async () => (await ok(client, 'run_status', { run: asking })).status === 'completed',
      60_000,
      200,
    );
    const again = await ok(client, 'rerun', { run: asking, from: 'review' });
    expect(again.forkedFrom).toContain(asking);
    expect(again.id).not.toBe(asking);
    const rerunWaits = async () =>
      ((await ok(client, 'inbox', {})).waiting as Array<{ run: string }>).some((w) => w.run === again.id);
    await waitFor('the rerun to wait in review', rerunWaits, 60_000, 200);
    expect(await ok(client, 'stop_run', { run: again.id, force: true })).toMatchObject({ outcome: 'terminated' });
  });
});

describe("through the checkout's worker (an embedded server of this file's own)", () => {
  const project = useOwnServerProject('ll-loop-e2e-mcp-worker-', { startServer: true });

  it("start_run hands the run to the checkout's worker, which runs it to its end", async () => {
    writeFileSync(join(project.cwd, '.loops', 'quick.yaml'), QUICK);
    const own = definedEnv(project.env);
    const client = await mcp.stdio({ cwd: project.cwd, env: own });
    const started = await ok(client, 'start_run', { loop: 'quick' });
    expect(started.worker_pid).toEqual(expect.any(Number));
    const id = started.run_id as string;
    await completedStatus(client, id);
    expect(JSON.stringify((await ok(client, 'run_logs', { run: id })).actions)).toContain('said hello');
  });

  it("a started run's actions see the environment of ll-loop mcp; a secret is in no file of the project", async () => {
    const secret = `mcp-e2e-${Date.now()}-TOPSECRET`;
    writeFileSync(
      join(project.cwd, '.loops', 'leak.yaml'),
      [
        'name: leak',
        'initial: use',
        'states:',
        '  use:',
        '    action: "echo \\"token ${env.API_TOKEN} $MCP_PLAIN\\""',
        '    capture: out',
        '    next: done',
        '  done:',
        '    terminal: true',
        '',
      ].join('\n'),
    );
    const own = definedEnv(project.env);
    const client = await mcp.stdio({
      cwd: project.cwd,
      env: { ...own, API_TOKEN: secret, MCP_PLAIN: 'plain-value' },
    });
    const id = (await ok(client, 'start_run', { loop: 'leak' })).run_id as string;
    const status = await completedStatus(client, id);
    expect(JSON.stringify(status.result)).toContain('token *** plain-value');
    const logs = JSON.stringify(await ok(client, 'run_logs', { run: id }));
    expect(logs).toContain('plain-value');
    expect(logs + JSON.stringify(status)).not.toContain(secret);
    const files = filesUnder(join(project.cwd, '.loops'));
    expect(files.some((f) => f.endsWith('temporal.db'))).toBe(true);
    for (const f of files) expect(readFileSync(f).includes(Buffer.from(secret)), f).toBe(false);
  });
});
