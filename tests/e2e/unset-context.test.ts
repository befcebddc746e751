/**
 * A `${context.KEY}` nothing gives a value (no `context:` entry, no parameter, not passed) is refused
 * before a run starts, naming the file, line, state and the fix, alike by `run` (through the
 * checkout's worker and on the command's own connection), `run --background`, `run --dry-run`,
 * MCP's start_run and a parent whose sub-loop reads it; `validate` warns and `simulate` says run
 * would not start it. Given with `--context`, the run starts. An embedded server of the file's own.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, definedEnv, mcpClients, textOf } from '../support/mcp-clients.js';
import { useOwnServerProject } from '../support/own-server-project.js';
import { waitFor } from '../support/processes.js';

const project = useOwnServerProject('ll-loop-e2e-unset-context-', { startServer: true });
const cli = (args: string[]) => project.cli(args);
const mcp = mcpClients();
afterAll(() => mcp.closeAll());

const GREET = [
  'name: greet',
  'description: says hello to someone',
  'initial: hello',
  'states:',
  '  hello:',
  '    action: echo "hello ${context.who}"',
  '    next: done',
  '  done:',
  '    terminal: true',
  '',
].join('\n');

const child = (name: string, passthrough: boolean) =>
  [
    `name: ${name}`,
    'description: calls greet',
    'initial: call',
    'states:',
    '  call:',
    '    loop: greet',
    ...(passthrough ? ['    context_passthrough: true'] : []),
    '    on_yes: done',
    '    on_no: done',
    '  done:',
    '    terminal: true',
    '',
  ].join('\n');

/** Runs this project has recorded (each run writes its events file when it starts). */
const runFiles = () => {
  const dir = join(project.cwd, '.loops', '.running');
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.events.jsonl')) : [];
};

const REFUSAL = /greet\.yaml:6:5: error: state "hello": \$\{context\.who\} has no value/;
const FIX = /fix: pass --context who=VALUE, or give it a value under context:/;

beforeAll(() => {
  writeFileSync(join(project.cwd, '.loops', 'greet.yaml'), GREET);
  writeFileSync(join(project.cwd, '.loops', 'calls.yaml'), child('calls', false));
  writeFileSync(join(project.cwd, '.loops', 'passes.yaml'), child('passes', true));
});

describe('an undefined ${context.x}', () => {
  it('is refused before the run starts by run, run --background and run --dry-run (exit 1, file, line, state, fix)', async () => {
    for (const args of [
      ['run', 'greet'],
      ['run', 'greet', '--background'],
      ['run', 'greet', '--dry-run'],
    ]) {
      const r = await cli(args);
      expect(r.code, `${args.join(' ')}\n${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(REFUSAL);
      expect(r.stderr).toMatch(FIX);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
    expect(runFiles()).toEqual([]);
    // validate: a warning that says run needs it; simulate says run would not start it.
    const v = await cli(['validate', 'greet']);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stderr).toMatch(
      /\$\{context\.who\} is not defined in context: \(ll-loop run refuses to start without it\)/,
    );
    const s = await cli(['simulate', 'greet', '--json']);
    expect(s.code, s.stderr).toBe(0);
    const sim = JSON.parse(s.stdout) as { exit_code: number; not_started: string };
    expect(sim.exit_code).toBe(1);
    expect(sim.not_started).toContain('--context who=VALUE');
    const given = await cli(['simulate', 'greet', '--json', '--context', 'who=ann']);
    expect(JSON.parse(given.stdout)).toMatchObject({ exit_code: 0 });
  }, 120_000);

  it('given with --context, the run starts and uses it', async () => {
    const r = await cli(['run', 'greet', '--context', 'who=ann', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
  }, 120_000);

  it('in a sub-loop: validate warns of a parent that gives it nothing and run refuses it; with passthrough, --context gives it', async () => {
    const before = runFiles().length;
    const v = await cli(['validate', 'calls']);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stderr).toMatch(
      /calls\.yaml:6:5: warning: state "call": sub-loop "greet" reads \$\{context\.who\} \(greet's state "hello"\), which nothing gives it/,
    );
    expect(v.stderr).toContain('fix: add with: { who: <value> } to state "call"');
    const r = await cli(['run', 'calls']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/calls\.yaml:6:5: error: state "call": sub-loop "greet" reads \$\{context\.who\}/);
    const p = await cli(['run', 'passes']);
    expect(p.code, p.stderr).toBe(1);
    expect(p.stderr).toMatch(/passes\.yaml:6:5: error: state "call": sub-loop "greet" reads \$\{context\.who\}/);
    expect(runFiles().length).toBe(before);
    const ok = await cli(['run', 'passes', '--context', 'who=ann']);
    expect(ok.code, ok.stderr).toBe(0);
  }, 120_000);

  it('resume refuses it too, when the loop file was edited to read it while the run was stopped; given, the run goes on', async () => {
    const v1 = (extra: string[]) =>
      [
        'name: edited',
        'description: waits, then maybe greets',
        'initial: wait',
        'states:',
        '  wait:',
        '    action: "while [ ! -f edited.go ]; do sleep 0.05; done"',
        '    timeout: 600',
        `    next: ${extra.length ? 'greet' : 'done'}`,
        ...extra,
        '  done:',
        '    terminal: true',
        '',
      ].join('\n');
    writeFileSync(join(project.cwd, '.loops', 'edited.yaml'), v1([]));
    const started = await cli(['run', 'edited', '--background', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const id = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;
    await waitFor('its action to run', async () => /action running/.test((await cli(['status', id])).stdout), 60_000);
    expect((await cli(['stop', id])).code).toBe(0);
    writeFileSync(
      join(project.cwd, '.loops', 'edited.yaml'),
      v1(['  greet:', '    action: echo "hello ${context.who}"', '    next: done']),
    );
    writeFileSync(join(project.cwd, 'edited.go'), '');
    const refused = await cli(['resume', id]);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toMatch(/edited\.yaml:\d+:5: error: state "greet": \$\{context\.who\} has no value/);
    expect(refused.stderr).toContain('fix: pass --context who=VALUE');
    const resumed = await cli(['resume', id, '--context', 'who=ann', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ instance_id: `${id}-r1`, final_state: 'done' });
  }, 180_000);

  it('MCP start_run refuses it with the same message, and starts nothing', async () => {
    const before = runFiles().length;
    const client = await mcp.stdio({ cwd: project.cwd, env: definedEnv(project.env) });
    const r = await call(client, 'start_run', { loop: 'greet' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/\$\{context\.who\} has no value/);
    expect(textOf(r)).toContain('--context who=VALUE');
    expect(runFiles().length).toBe(before);
  }, 120_000);
});
