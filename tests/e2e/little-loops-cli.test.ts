/**
 * little-loops' command line through the `ll-loop` binary on an embedded dev server of its own:
 * `run <loop> '{"k": "v"}'` and `run <loop> text` reaching the context, `-n`, `--delay`,
 * `--follow`, `next-loop`, `list --status`, `fragments`, and each alias doing what its command
 * does. Runs the built package (dist/).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useOwnServerProject } from '../support/own-server-project.js';
import { waitFor } from '../support/processes.js';

const project = useOwnServerProject('ll-loop-e2e-little-loops-', { startServer: true });
const cli = (args: string[]) => project.cli(args);

function loop(name: string, yaml: string): void {
  writeFileSync(join(project.cwd, '.loops', `${name}.yaml`), yaml);
}

interface Result {
  terminated_by: string;
  final_state: string;
  instance_id: string;
  steps?: number;
  captured: Record<string, { output: string }>;
}

async function runJson(args: string[]): Promise<{ code: number; result: Result }> {
  const r = await cli([...args, '--json']);
  expect(r.stdout, r.stderr).toMatch(/^\{/);
  return { code: r.code, result: JSON.parse(r.stdout) as Result };
}

const GREET = `name: greet
initial: hello
context:
  who: world
  mood: calm
states:
  hello:
    action: 'echo "hello \${context.who}, \${context.mood}"'
    capture: said
    next: done
  done:
    terminal: true
`;

const TASK = `name: task
initial: work
context:
  input: ""
states:
  work:
    action: 'echo "task: \${context.input}"'
    capture: said
    next: done
  done:
    terminal: true
`;

/** Two states that hand over to each other (b's check never passes): a new pass every second step. */
const SPIN = `name: spin
initial: a
max_iterations: 1000
states:
  a:
    action: "echo a"
    next: b
  b:
    action: "false"
    on_yes: done
    on_no: a
  done:
    terminal: true
`;

describe('run <loop> [input]', () => {
  it("a JSON object's keys reach the context; --context still wins", async () => {
    loop('greet', GREET);
    const { code, result } = await runJson(['run', 'greet', '{"who": "json", "mood": "glad"}']);
    expect(code).toBe(0);
    expect(result.captured.said?.output).toBe('hello json, glad');
    const over = await runJson(['run', 'greet', '{"who": "json"}', '--context', 'who=flag']);
    expect(over.result.captured.said?.output).toBe('hello flag, calm');
  }, 120_000);

  it("text reaches the loop's input_key (input); an input the loop never reads is refused", async () => {
    loop('task', TASK);
    const { code, result } = await runJson(['task', 'fix the lint warnings']);
    expect(code).toBe(0);
    expect(result.captured.said?.output).toBe('task: fix the lint warnings');
    loop('greet', GREET);
    const refused = await cli(['run', 'greet', 'EPIC-1']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'error: the input "EPIC-1" goes to context.input (the loop\'s input_key), which loop "greet" does not use; it uses mood, who',
    );
    expect(refused.stderr).toMatch(/^fix: give it to the key the loop reads/m);
  }, 120_000);
});

describe("run's little-loops flags", () => {
  it('-n caps the steps (exit 3, terminated_by max_steps)', async () => {
    loop('spin', SPIN);
    const { code, result } = await runJson(['run', 'spin', '-n', '3']);
    expect(code).toBe(3);
    expect(result.terminated_by).toBe('max_steps');
  }, 120_000);

  it('--delay sleeps before each new pass (the run waits in its backoff)', async () => {
    loop('spin', SPIN);
    const started = await cli(['run', 'spin', '--delay', '600', '--background']);
    expect(started.code, started.stderr).toBe(0);
    const id = /^started (\S+) in the background/m.exec(started.stdout)?.[1];
    expect(id, started.stdout).toBeDefined();
    try {
      // After its first pass (a, b) the run sleeps 600 s before a starts the second.
      await waitFor(
        'the run to wait in its backoff',
        async () => /backoff/.test((await cli(['status', id!])).stdout),
        60_000,
        500,
      );
    } finally {
      await cli(['stop', id!]);
    }
  }, 120_000);

  it('--follow shows the progress of a run in the foreground; with --background it is refused', async () => {
    loop('greet', GREET);
    const r = await cli(['run', 'greet', '--follow']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('hello → echo "hello world, calm"');
    expect(r.stdout).toContain('Loop completed: done');
    const both = await cli(['run', 'greet', '-f', '--background']);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('error: --follow and --background contradict each other');
  }, 120_000);
});

describe("little-loops' short flags, history --tail and resume --instance-id", () => {
  it('run -b starts in the background; history -n/--tail shows the last events; resume <loop> --instance-id resumes that run', async () => {
    loop('greet', GREET);
    const bg = await cli(['run', 'greet', '-b', '--json']);
    expect(bg.code, bg.stderr).toBe(0);
    const started = (JSON.parse(bg.stdout) as { instance_id: string }).instance_id;
    await waitFor(
      'the background run to end',
      async () => /Loop completed/.test((await cli(['status', started])).stdout),
      60_000,
      200,
    );
    const all = await cli(['history', 'greet', started]);
    expect(all.code, all.stderr).toBe(0);
    const lines = all.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(3);
    for (const flag of ['-n', '--tail']) {
      const tail = await cli(['history', 'greet', started, flag, '2']);
      expect(tail.code, tail.stderr).toBe(0);
      expect(tail.stdout.trim().split('\n')).toEqual(lines.slice(-2));
    }
    const runs = await cli(['history', 'greet', '--tail', '1', '--json']);
    expect(JSON.parse(runs.stdout)).toHaveLength(1);
    expect((await cli(['history', 'greet', '--tail', '0'])).stderr).toContain('--tail must be a whole number');
    // A run that failed, resumed by its loop's name and --instance-id (little-loops' form).
    loop(
      'gate',
      'name: gate\ninitial: a\nstates:\n  a:\n    action: "test -f gate-open"\n    on_yes: done\n  done:\n    terminal: true\n',
    );
    const failed = await runJson(['run', 'gate']);
    expect(failed.code).toBe(5);
    const id = failed.result.instance_id;
    const wrong = await cli(['resume', 'greet', '--instance-id', id]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`error: --instance-id ${id} is not a run of loop "greet"`);
    writeFileSync(join(project.cwd, 'gate-open'), '');
    const resumed = await cli(['resume', 'gate', '--instance-id', id, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ instance_id: `${id}-r1`, final_state: 'done' });
  }, 180_000);
});

describe('next-loop and fragments', () => {
  it("next-loop suggests this project's loops from their past runs; list --status lists them by outcome", async () => {
    loop('greet', GREET);
    loop('task', TASK);
    for (let i = 0; i < 2; i += 1) expect((await cli(['run', 'greet', '--quiet'])).code).toBe(0);
    const r = await cli(['next-loop', '--count', '5', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const suggestions = JSON.parse(r.stdout) as Array<{ loop: string; command: string; rationale: string }>;
    const greet = suggestions.find((s) => s.loop === 'greet');
    expect(greet).toMatchObject({ command: 'll-loop run greet' });
    expect(greet!.rationale).toMatch(/^\d+ runs; last run today; \d+% success$/);
    // list --status, through the alias and little-loops' word for a success.
    const ended = await cli(['l', '--status', 'completed', '--json']);
    expect(ended.code, ended.stderr).toBe(0);
    const listed = JSON.parse(ended.stdout) as Array<{ loop: string; outcome: string }>;
    expect(listed.filter((r) => r.loop === 'greet').length).toBeGreaterThanOrEqual(2);
    expect(new Set(listed.map((r) => r.outcome))).toEqual(new Set(['succeeded']));
    const human = await cli(['next-loop', '--exclude', 'spin']);
    expect(human.stdout).toMatch(/^Next loop suggestion:\n\n {2}#1 {2}\S+ {2}score=0\.\d{3}\n/);
    expect(human.stdout).not.toContain('spin');
  }, 180_000);

  it('fragments lists a library', async () => {
    const r = await cli(['fragments', 'lib/common.yaml']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/shell_exit\s+action_type, evaluate\s+A shell command judged by its exit code/);
  });
});

describe('aliases', () => {
  it('r, val, l, s, t and sim do what run, validate, list, show, test and simulate do', async () => {
    loop('greet', GREET);
    const ran = await runJson(['r', 'greet']);
    expect(ran.code).toBe(0);
    expect(ran.result.captured.said?.output).toBe('hello world, calm');
    for (const [alias, command, ...rest] of [
      ['val', 'validate', 'greet'],
      ['l', 'list'],
      ['s', 'show', 'greet'],
      ['sim', 'simulate', 'greet', '--scenario', 'all-pass'],
      ['t', 'test', 'greet', 'hello'],
    ] as const) {
      const [a, c] = [await cli([alias, ...rest]), await cli([command, ...rest])];
      const timeless = (text: string) => text.replace(/after \d+(\.\d+)? s/g, 'after … s');
      expect([a.code, timeless(a.stdout)], `${alias}: ${a.stderr}`).toEqual([c.code, timeless(c.stdout)]);
      expect(a.code, `${alias}: ${a.stderr}`).toBe(0);
    }
  }, 180_000);

  it('st, h and res do what status, history and resume do for a run', async () => {
    loop('greet', GREET);
    const { result } = await runJson(['run', 'greet']);
    const id = result.instance_id;
    for (const [alias, command] of [
      ['st', 'status'],
      ['h', 'history'],
      ['res', 'resume'],
    ] as const) {
      const [a, c] = [await cli([alias, id]), await cli([command, id])];
      expect([a.code, a.stdout, a.stderr], alias).toEqual([c.code, c.stdout, c.stderr]);
    }
    // A finished run is not resumed: the same refusal either way.
    expect((await cli(['res', id])).stderr).toMatch(/^error: /);
  }, 180_000);
});
