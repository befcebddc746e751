/**
 * The `ll-loop` binary as a user runs it, in a temporary project: the embedded default (a dev
 * server it starts itself, on ports of its own here), exit codes, JSON output, validation
 * messages, bad input. Runs the built package (dist/), which `npm test` builds first.
 */
import { execFile, spawnSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCliBinary } from '../support/cli.js';
import { freePort, liveProcesses, waitFor } from '../support/processes.js';

let cwd: string;
let env: NodeJS.ProcessEnv;

function loop(name: string, yaml: string): void {
  writeFileSync(join(cwd, '.loops', `${name}.yaml`), yaml);
}

/** `ll-loop <args…>` in the test project, waited for. */
const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
  runCliBinary(args, { cwd, env: { ...env, ...extraEnv } });

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'll-loop-e2e-'));
  mkdirSync(join(cwd, '.loops'));
  const { TEMPORAL_ADDRESS: _drop, ...rest } = process.env;
  env = {
    ...rest,
    LL_TEMPORAL_PORT: String(await freePort()),
    LL_TEMPORAL_UI_PORT: String(await freePort()),
    NO_COLOR: '1',
  };
});

afterAll(async () => {
  await cli(['server', 'stop']);
});

describe('ll-loop run (embedded server)', () => {
  it('starts its own dev server with on-disk data, runs the loop, and exits 0', async () => {
    loop(
      'greet',
      `name: greet
description: say hello then finish
initial: hello
states:
  hello:
    action: "echo hello from \${context.who}"
    capture: greeting
    next: done
  done:
    action: "echo 'done: \${captured.greeting.output}'"
    terminal: true
context:
  who: e2e
`,
    );
    const r = await cli(['run', 'greet']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('[1/50] hello → echo hello from e2e');
    expect(r.stdout).toContain('Loop completed: done (1 iteration');
    expect(existsSync(join(cwd, '.loops', '.temporal', 'temporal.db'))).toBe(true);
    const running = readdirSync(join(cwd, '.loops', '.running'));
    expect(running.some((f) => /^greet-\d{8}T\d{6}\.events\.jsonl$/.test(f))).toBe(true);
    expect(running.some((f) => /^greet-\d{8}T\d{6}\.state\.json$/.test(f))).toBe(true);
  });

  it('reuses the server, accepts the `ll-loop <name>` shorthand, --context and --json', async () => {
    const r = await cli(['greet', '--context', 'who=json world', '--json']);
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({ final_state: 'done', terminated_by: 'terminal', iterations: 1 });
    expect(result.captured.greeting.output).toBe('hello from json world');
    expect(result.instance_id).toMatch(/^greet-/);
  });

  it('exits 2 on a failure terminal, 3 on max_iterations, 5 on a run error', async () => {
    loop(
      'fails',
      'name: fails\ndescription: d\ninitial: a\nstates:\n  a:\n    action: "exit 1"\n    on_yes: done\n    on_no: escalate\n  done:\n    terminal: true\n  escalate:\n    terminal: true\n    failure: true\n',
    );
    expect((await cli(['run', 'fails'])).code).toBe(2);
    loop(
      'spins',
      'name: spins\ndescription: d\ninitial: a\nmax_iterations: 2\nstates:\n  a:\n    action: "true"\n    next: a\n  done:\n    terminal: true\n',
    );
    const limited = await cli(['run', 'spins']);
    expect(limited.code).toBe(3);
    expect(limited.stdout).toContain('max_iterations reached');
    loop(
      'noroute',
      'name: noroute\ndescription: d\ninitial: a\nstates:\n  a:\n    action: "exit 1"\n    on_yes: done\n  done:\n    terminal: true\n',
    );
    const error = await cli(['run', 'noroute']);
    expect(error.code).toBe(5);
    expect(error.stdout).toContain('no valid transition from state "a" for verdict "no"');
    // The checkout's worker logs how each ended, one line each: outcomes are not faults (no stacks).
    const log = readFileSync(join(cwd, '.loops', '.worker', 'worker.log'), 'utf8');
    expect(log).toMatch(/finished fails-\S+: failure terminal in state escalate/);
    expect(log).not.toMatch(/^\s+at /m);
    expect(log).not.toContain('[WARN]');
  });

  it('Ctrl-C (SIGINT) stops the run gracefully: the action is killed and the run recorded as cancelled', async () => {
    // A sleep of this process's own (its pid in the fraction): another copy of this file running
    // at the same time has its own, and the checks below find only this one.
    const sleep = `sleep 35.${process.pid}`;
    loop(
      'long',
      `name: long\ndescription: d\ninitial: a\nstates:\n  a:\n    action: "echo started; ${sleep}"\n    next: done\n  done:\n    terminal: true\n`,
    );
    const child = spawn(process.execPath, [BIN, 'run', 'long'], { cwd, env });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor('the action to be shown', () => out.includes(sleep), 30_000, 50);
    // Interrupted while the action runs: its sleep is a live process.
    await waitFor('the action to run', () => liveProcesses(sleep) > 0, 30_000, 50);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(6);
    expect(out).toContain('Loop stopped in state a');
    const ps = spawnSync('pgrep', ['-f', sleep], { encoding: 'utf8' });
    expect(ps.stdout.trim()).toBe('');
  });
});

describe('bad input never crashes', () => {
  it('an unknown loop lists the loops that exist', async () => {
    const r = await cli(['run', 'gret']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no loop named "gret" (did you mean "greet"?)');
    expect(r.stderr).toContain('greet');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('invalid YAML names the file, line and column', async () => {
    loop('broken', 'name: broken\ninitial: a\nstates:\n  a: [unclosed\n');
    const r = await cli(['validate', 'broken']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/broken\.yaml:\d+:\d+: error: invalid YAML/);
  });

  it('a wrong field and an unknown state are reported with line, state, hint and fix; --json gives data', async () => {
    loop(
      'typo',
      'name: typo\ndescription: d\ninitial: check\nstates:\n  check:\n    acton: "true"\n    on_yes: dne\n  done:\n    terminal: true\n',
    );
    const r = await cli(['validate', 'typo']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /typo\.yaml:6:5: error: state "check": unknown state field "acton" \(did you mean "action"\?\)/,
    );
    const json = JSON.parse((await cli(['validate', 'typo', '--json'])).stdout);
    expect(json.valid).toBe(false);
    expect(json.diagnostics[0]).toMatchObject({ severity: 'error', state: 'check', line: 6, column: 5 });
  });

  it('a file that is not a mapping, and a missing --context value, are clear errors', async () => {
    loop('list', '- a\n- b\n');
    const r = await cli(['validate', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('must be a mapping');
    const c = await cli(['run', 'greet', '--context', 'who']);
    expect(c.code).toBe(1);
    expect(c.stderr).toContain('--context "who" is not KEY=VALUE');
  });

  it('an undefined ${context.x} is refused before the run; one only the run meets ends it naming the variable, the state and the fix; events stay on disk', async () => {
    loop(
      'undef',
      'name: undef\ndescription: d\ninitial: a\nstates:\n  a:\n    action: "echo ${context.target_dir}"\n    next: done\n  done:\n    terminal: true\n',
    );
    const refused = await cli(['run', 'undef']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/undef\.yaml:6:5: error: state "a": \$\{context\.target_dir\} has no value/);
    expect(refused.stderr).toContain('fix: pass --context target_dir=VALUE');
    // `later` is captured by b, which runs after a: only the run can tell.
    loop(
      'undef',
      'name: undef\ndescription: d\ninitial: a\nstates:\n  a:\n    action: "echo ${captured.later.output}"\n    next: b\n  b:\n    action: "echo x"\n    capture: later\n    next: done\n  done:\n    terminal: true\n',
    );
    const r = await cli(['run', 'undef']);
    expect(r.code).toBe(5);
    expect(r.stdout).toContain('state "a": undefined variable ${captured.later.output}');
    expect(r.stdout).toContain('write ${captured.later.output:-default} for a fallback');
    const files = readdirSync(join(cwd, '.loops', '.running')).filter(
      (f) => f.startsWith('undef-') && f.endsWith('.events.jsonl'),
    );
    expect(files).toHaveLength(1);
    const events = readFileSync(join(cwd, '.loops', '.running', files[0]!), 'utf8');
    expect(events).toContain('"loop_complete"');
  });

  it('--dry-run prints the plan without a server', async () => {
    const r = await cli(['run', 'greet', '--dry-run'], { LL_TEMPORAL_PORT: '1' });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Execution plan for greet');
    expect(r.stdout).toContain('hello (initial)');
  });

  it('help for one command: ll-loop help <command> and <command> --help print its usage and run nothing', async () => {
    for (const args of [
      ['help', 'create'],
      ['create', '--help'],
      ['run', 'greet', '-h'],
    ]) {
      const r = await cli(args, { LL_TEMPORAL_PORT: '1' });
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toContain(`ll-loop ${args.includes('run') ? 'run <name|path>' : 'create [--kind K]'}`);
      expect(r.stdout).not.toContain('ll-loop validate');
    }
    expect(readdirSync(join(cwd, '.loops')).some((f) => f.startsWith('create'))).toBe(false);
  });

  it('a reader that goes away (ll-loop … | true) is not a crash', async () => {
    // `true` exits without reading, long before node starts writing: every write meets EPIPE.
    // Waited for without blocking this process: its test runner talks to it meanwhile.
    const r = await promisify(execFile)(
      'bash',
      ['-c', `"${process.execPath}" "${BIN}" list --builtin | true; echo "exit=\${PIPESTATUS[0]}"`],
      { cwd, env, encoding: 'utf8' },
    );
    expect(r.stderr).not.toContain('EPIPE');
    expect(r.stdout.trim()).toBe('exit=0');
  });

  it('an unreachable TEMPORAL_ADDRESS fails fast with a clear message (exit 7)', async () => {
    const started = Date.now();
    const r = await cli(['run', 'greet'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('127.0.0.1:1');
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
