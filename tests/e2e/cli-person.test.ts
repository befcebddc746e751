/**
 * The CLI a person expects, with the built binary on an embedded dev server of this file's own:
 * run, list and status from a subdirectory of the project; `resume --background` returns at once
 * and the resumed run finishes by itself; a project whose port is answered by another project's
 * server, or by one ll-loop did not start, is told so once.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { useOwnServerProject } from '../support/own-server-project.js';
import { waitFor } from '../support/processes.js';
import { waitForRunEvent } from '../support/run-events.js';

let cwd: string;
let env: NodeJS.ProcessEnv;

const project = useOwnServerProject('ll-loop-e2e-person-', { startServer: true });
const cli = (args: string[], dir?: string, extraEnv: NodeJS.ProcessEnv = {}) => project.cli(args, dir, extraEnv);

function loop(name: string, yaml: string): void {
  writeFileSync(join(cwd, '.loops', `${name}.yaml`), yaml);
}

beforeAll(() => {
  cwd = project.cwd;
  env = project.env;
});

describe('from a subdirectory', () => {
  it('run, list and status work in the project above, like git', async () => {
    loop(
      'where',
      'name: where\ninitial: a\nstates:\n  a:\n    action: "pwd"\n    capture: dir\n    next: done\n  done:\n    terminal: true\n',
    );
    const sub = join(cwd, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    const ran = await cli(['run', 'where', '--json'], sub);
    expect(ran.code, ran.stderr).toBe(0);
    const result = JSON.parse(ran.stdout) as { instance_id: string; captured: { dir: { output: string } } };
    // The run works in the project, and its files are the project's, not the subdirectory's.
    expect(result.captured.dir.output).toBe(cwd);
    expect(existsSync(join(cwd, '.loops', '.running', `${result.instance_id}.events.jsonl`))).toBe(true);
    expect(existsSync(join(sub, '.loops'))).toBe(false);
    const listed = await cli(['list'], sub);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^where\s/m);
    const status = await cli(['status', result.instance_id], sub);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('Loop completed: done');
    expect(status.stderr).not.toContain('note:');
  }, 90_000);
});

describe('resume --background', () => {
  it('returns as soon as the resumed run has started, and the run finishes by itself', async () => {
    loop(
      'gate',
      'name: gate\ninitial: a\nstates:\n  a:\n    action: "test -f gate-open"\n    on_yes: b\n  b:\n    action: "while [ ! -f gate-end ]; do sleep 0.05; done; echo through > gate.out"\n    timeout: 120\n    terminal: true\n',
    );
    const failed = await cli(['run', 'gate', '--json']);
    expect(failed.code).toBe(5);
    const id = (JSON.parse(failed.stdout) as { instance_id: string }).instance_id;
    writeFileSync(join(cwd, 'gate-open'), '');
    // A --context key new on the resume is checked like run's.
    const mistyped = await cli(['resume', id, '--context', 'gat=1', '--background']);
    expect(mistyped.code).toBe(1);
    expect(mistyped.stderr).toContain('error: --context "gat": loop "gate" does not use this key');
    const resumed = await cli(['resume', id, '--background', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toEqual({ instance_id: `${id}-r1`, resumed_from: id });
    // It returned with the action still held (until gate-end): the run goes on without this process.
    expect(existsSync(join(cwd, 'gate.out'))).toBe(false);
    writeFileSync(join(cwd, 'gate-end'), '');
    // Its action writes gate.out before the run records its end, and the run records its end
    // before the server has closed it (status says "running" then): each is awaited in turn.
    await waitForRunEvent(cwd, `${id}-r1`, 'loop_complete');
    expect(readFileSync(join(cwd, 'gate.out'), 'utf8').trim()).toBe('through');
    let status = await cli(['status', `${id}-r1`]);
    await waitFor(
      'the server to close the resumed run',
      async () => (status = await cli(['status', `${id}-r1`])).stdout.includes('Loop completed'),
      30_000,
    );
    expect(status.stdout).toContain('Loop completed: b');
  }, 120_000);
});

describe('another server on the port', () => {
  it("another project's server: the note names its data directory and Web UI, once", async () => {
    const other = mkdtempSync(join(tmpdir(), 'll-loop-e2e-other-'));
    mkdirSync(join(other, '.loops'));
    const first = await cli(['list', '--running'], other);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe(
      `note: another project's server answers on 127.0.0.1:${env.LL_TEMPORAL_PORT} (data ${join(cwd, '.loops', '.temporal')}, Web UI http://127.0.0.1:${env.LL_TEMPORAL_UI_PORT}): ` +
        `this project's runs go there too; for a server of its own, set LL_TEMPORAL_PORT (and LL_TEMPORAL_UI_PORT) to free ports\n`,
    );
    const again = await cli(['list', '--running'], other);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('');
    // The server's own project is never told.
    expect((await cli(['list', '--running'])).stderr).toBe('');
  }, 60_000);

  it('a server ll-loop did not start: the note says its data directory is unknown', async () => {
    const stranger = mkdtempSync(join(tmpdir(), 'll-loop-e2e-stranger-'));
    mkdirSync(join(stranger, '.loops'));
    const port = inject('temporalAddress').split(':').pop()!;
    const r = await cli(['list', '--running'], stranger, { LL_TEMPORAL_PORT: port });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `note: a Temporal server that ll-loop did not start answers on 127.0.0.1:${port} (its data directory is unknown`,
    );
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  }, 60_000);
});

describe('a runtime directory that cannot be made', () => {
  it('a file where .loops/.worker belongs: run exits 1 naming the path, the cause and the fix, without a stack trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'll-loop-e2e-blocked-'));
    mkdirSync(join(dir, '.loops'));
    writeFileSync(
      join(dir, '.loops', 'hi.yaml'),
      'name: hi\ninitial: a\nstates:\n  a:\n    action: "echo hi"\n    next: done\n  done:\n    terminal: true\n',
    );
    writeFileSync(join(dir, '.loops', '.worker'), 'not a directory');
    const r = await cli(['run', 'hi'], dir);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      `error: cannot create ${join(dir, '.loops', '.worker')}, where ll-loop keeps its runtime files`,
    );
    expect(r.stderr).toContain('a file is in the way (a directory is needed there)');
    expect(r.stderr).toContain('fix: move the file out of the way');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 90_000);
});
