/**
 * `ll-loop create` as a user meets it: the built binary (bin/ll-loop.js) in a pseudo-terminal,
 * driven by keystrokes sent only once each question is on screen; and the same binary without a
 * terminal. The seed session ends with "Run it now" on the test run's Temporal
 * server, with scripted mypy/ruff and the fake host CLI for the fix prompts.
 *
 * The pseudo-terminal is Python's standard `pty` module (a small bridge below): node-pty is not a
 * dependency, and util-linux `script` cannot wait for a prompt before sending keys (and its flags
 * differ on macOS). Without python3 these tests are skipped and say why.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { loadLoopFile } from '../../loader/load.js';
import { BIN } from '../support/cli.js';
import { project, script, toolEnv } from '../integration/harness.js';

const HAVE_PTY = spawnSync('python3', ['-c', 'import pty, termios, fcntl'], { stdio: 'ignore' }).status === 0;

/**
 * The bridge: runs argv[1:] on a new pseudo-terminal (120x40), copies our stdin to it and its
 * output to our stdout, and exits with the child's exit code.
 */
const PTY_BRIDGE = `
import fcntl, os, pty, select, struct, sys, termios
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', 40, 120, 0, 0))
    os.execvp(sys.argv[1], sys.argv[1:])
stdin_open = True
while True:
    ready, _, _ = select.select([fd] + ([0] if stdin_open else []), [], [])
    if 0 in ready:
        data = os.read(0, 4096)
        if data:
            os.write(fd, data)
        else:
            stdin_open = False
    if fd in ready:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b''
        if not data:
            break
        os.write(1, data)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
`;

const KEY = { enter: '\r', down: '\x1b[B', space: ' ', ctrlC: '\x03' };

/** Terminal output as text: colours and cursor movement removed. */
function plain(raw: string): string {
  return raw.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/\x1b[()][A-Za-z0-9]/g, '');
}

class Terminal {
  private raw = '';
  private cursor = 0;
  readonly exited: Promise<number>;
  private readonly child;

  constructor(args: string[], cwd: string, env: Record<string, string>) {
    this.child = spawn('python3', ['-c', PTY_BRIDGE, process.execPath, BIN, ...args], {
      cwd,
      env: { ...process.env, TERM: 'xterm-256color', ...env } as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.child.stdout.on('data', (d: Buffer) => (this.raw += d.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code ?? -1)));
  }

  get text(): string {
    return plain(this.raw);
  }

  /** Wait until `what` appears after the last thing waited for; the text since then. */
  async waitFor(what: string, ms = 30_000): Promise<string> {
    const deadline = Date.now() + ms;
    for (;;) {
      const text = this.text;
      const at = text.indexOf(what, this.cursor);
      if (at >= 0) {
        const seen = text.slice(this.cursor, at + what.length);
        this.cursor = at + what.length;
        // The prompt is drawn once its keypress handler is attached; a moment more is slack.
        await new Promise((r) => setTimeout(r, 100));
        return seen;
      }
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${JSON.stringify(what)}; the terminal shows:\n${text.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Wait for a question, then answer it with keystrokes. */
  async answer(question: string, ...keys: string[]): Promise<string> {
    const seen = await this.waitFor(question);
    this.child.stdin.write(keys.join(''));
    return seen;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}

function calls(toolsDir: string): string[] {
  const file = join(toolsDir, 'calls.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { tool: string; args: string[] })
    .map((c) => [c.tool, ...c.args].join(' '));
}

/** Seed 001's session result, with the fixes ll-loop create writes (prompts for the host CLI). */
const SEED_SESSION_YAML = `name: fix-types-and-lint
description: Run \`mypy src/\` and \`ruff check src/\`; fix what fails until all pass.
initial: check_types
max_iterations: 10
states:
  check_types:
    action: mypy src/
    on_success: check_lint
    on_failure: fix_types
  fix_types:
    action: Run \`mypy src/\` and fix the type errors it reports. Change only what is needed.
    action_type: prompt
    next: check_types
  check_lint:
    action: ruff check src/
    on_success: all_valid
    on_failure: fix_lint
  fix_lint:
    action: Run \`ruff check src/\` and fix the lint errors it reports. Change only what is needed.
    action_type: prompt
    next: check_lint
  all_valid:
    terminal: true
`;

describe.skipIf(!HAVE_PTY)('the wizard in a pseudo-terminal (python3 pty)', () => {
  it("seed 001's session on a Python project: kind, checks, attempts, name, save, then run it", async () => {
    const p = project(['mypy', 'ruff', 'pytest']);
    writeFileSync(join(p.cwd, 'pyproject.toml'), '[project]\nname = "app"\n');
    mkdirSync(join(p.cwd, 'src', 'app'), { recursive: true });
    script(p.toolsDir, 'mypy', [
      [1, 'src/app/x.py:1: error: Incompatible types'],
      [0, 'Success: no issues found'],
    ]);
    script(p.toolsDir, 'ruff', [[0, 'All checks passed!']]);
    const log = join(p.cwd, 'claude.log');
    const term = new Terminal(
      ['create'],
      p.cwd,
      toolEnv(p, { TEMPORAL_ADDRESS: inject('temporalAddress'), FAKE_CLAUDE_LOG: log }),
    );
    try {
      await term.answer('What kind of automation loop do you want to create?', KEY.enter);
      await term.waitFor('Fix until clean (Recommended)');
      await term.answer('What should the loop fix?', KEY.enter);
      const listed = await term.waitFor('Other…');
      expect(listed).toContain('Type errors (mypy src/)');
      expect(listed).toContain('Lint errors (ruff check src/)');
      expect(listed).toContain('Test failures (pytest)');
      await term.answer("What's the maximum number of fix attempts?", KEY.enter);
      await term.waitFor('10 (Recommended)');
      await term.answer('Name for the loop:', KEY.enter);
      const preview = await term.answer('Save to .loops/fix-types-and-lint.yaml?', KEY.enter);
      expect(preview).toContain("Here's the loop configuration:");
      expect(preview.replaceAll('\r\n', '\n')).toContain(SEED_SESSION_YAML);
      await term.waitFor('✓ Wrote .loops/fix-types-and-lint.yaml');
      await term.answer('What next?', KEY.down, KEY.enter);
      expect(await term.exited).toBe(0);
    } finally {
      term.kill();
    }
    expect(readFileSync(join(p.cwd, '.loops', 'fix-types-and-lint.yaml'), 'utf8')).toBe(SEED_SESSION_YAML);
    // The run: mypy fails, the fix prompt goes to the host CLI, mypy passes, ruff passes.
    expect(calls(p.toolsDir)).toEqual(['mypy src/', 'mypy src/', 'ruff check src/']);
    const prompts = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { prompt: string }).prompt);
    expect(prompts).toEqual(['Run `mypy src/` and fix the type errors it reports. Change only what is needed.']);
  }, 120_000);

  it('maintain constraints with an "Other…" check, custom wait and attempts; an existing loop is not replaced', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-create-wizard-'));
    writeFileSync(join(cwd, 'package.json'), JSON.stringify({ scripts: { lint: 'eslint .', test: 'vitest run' } }));
    writeFileSync(join(cwd, 'tsconfig.json'), '{}');
    mkdirSync(join(cwd, '.loops'));
    writeFileSync(join(cwd, '.loops', 'keep.yaml'), 'name: keep\n');
    const term = new Terminal(['create'], cwd, {});
    try {
      await term.answer('What kind of automation loop do you want to create?', KEY.down, KEY.enter);
      // Types and lint are ticked; tick "Other…" (fourth) as well.
      await term.answer('Which checks must keep passing?', KEY.down, KEY.down, KEY.down, KEY.space, KEY.enter);
      await term.answer('Command for the other check', 'make check', KEY.enter);
      await term.answer('How should its failures be fixed?', 'shell: make fix', KEY.enter);
      await term.answer('Add another check?', KEY.enter);
      await term.answer(
        'How long should it wait between rounds of checks?',
        KEY.down,
        KEY.down,
        KEY.down,
        KEY.down,
        KEY.enter,
      );
      await term.answer('Wait between rounds', '90s', KEY.enter);
      await term.answer("What's the maximum number of fix attempts?", KEY.down, KEY.down, KEY.down, KEY.enter);
      await term.answer('Maximum attempts:', '7', KEY.enter);
      await term.answer('Name for the loop:', 'keep', KEY.enter);
      await term.answer('Save to .loops/keep.yaml?', KEY.enter);
      await term.answer('.loops/keep.yaml already exists. Replace it?', KEY.enter);
      await term.answer('Name for the loop:', KEY.enter);
      await term.answer('Save to .loops/guard-types-lint-and-check.yaml?', KEY.enter);
      await term.answer('What next?', KEY.down, KEY.down, KEY.enter);
      await term.waitFor('Run it with: ll-loop run guard-types-lint-and-check');
      expect(await term.exited).toBe(0);
    } finally {
      term.kill();
    }
    expect(readFileSync(join(cwd, '.loops', 'keep.yaml'), 'utf8')).toBe('name: keep\n');
    const file = join(cwd, '.loops', 'guard-types-lint-and-check.yaml');
    expect(readFileSync(file, 'utf8')).toBe(`name: guard-types-lint-and-check
description: "Keep \`npx tsc --noEmit\`, \`npm run lint\` and \`make check\` passing: re-check every 90s and fix what breaks."
initial: check_types
max_iterations: 7
maintain: true
maintain_delay: 90
states:
  check_types:
    action: npx tsc --noEmit
    on_success: check_lint
    on_failure: fix_types
  fix_types:
    action: Run \`npx tsc --noEmit\` and fix the type errors it reports. Change only what is needed.
    action_type: prompt
    next: check_types
  check_lint:
    action: npm run lint
    on_success: check_check
    on_failure: fix_lint
  fix_lint:
    action: Run \`npm run lint\` and fix the lint errors it reports. Change only what is needed.
    action_type: prompt
    next: check_lint
  check_check:
    action: make check
    on_success: all_valid
    on_failure: fix_check
  fix_check:
    action: make fix
    next: check_check
  all_valid:
    on_maintain: check_types
    terminal: true
`);
    expect(loadLoopFile(file, {}, cwd).diagnostics).toEqual([]);
  }, 120_000);

  it('drive a metric: measure, direction, target, improvement (defaults), 20 rounds', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-create-metric-'));
    const term = new Terminal(['create'], cwd, {});
    try {
      await term.answer('What kind of automation loop do you want to create?', KEY.down, KEY.down, KEY.enter);
      await term.answer('Command that prints the number to drive', 'npx eslint . -f json | jq length', KEY.enter);
      await term.answer('Which way is better?', KEY.enter);
      await term.answer('Target value:', KEY.enter);
      await term.answer('What should each round do to improve it?', KEY.enter);
      await term.answer("What's the maximum number of rounds of improvement?", KEY.down, KEY.enter);
      await term.answer('Name for the loop:', KEY.enter);
      await term.answer('Save to .loops/reduce-metric.yaml?', KEY.enter);
      await term.answer('What next?', KEY.enter);
      await term.waitFor('reduce-metric.yaml is valid (3 states)');
      expect(await term.exited).toBe(0);
    } finally {
      term.kill();
    }
    const def = loadLoopFile(join(cwd, '.loops', 'reduce-metric.yaml'), {}, cwd).definition!;
    expect(def.context).toEqual({ metric_cmd: 'npx eslint . -f json | jq length', target: 0, tolerance: 0 });
    expect(def.max_iterations).toBe(20);
    expect(def.states.apply).toMatchObject({
      action:
        'Run `npx eslint . -f json | jq length`: it prints a number that should get lower (target 0). Make one focused change that moves it toward the target.',
      action_type: 'prompt',
      next: 'measure',
    });
  }, 60_000);

  it('run a sequence: steps until an empty one, the until check, a name typed in', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-create-sequence-'));
    const term = new Terminal(['create'], cwd, {});
    try {
      await term.answer('What kind of automation loop do you want to create?', KEY.down, KEY.down, KEY.down, KEY.enter);
      await term.answer('Step 1 (', 'shell: npm run build', KEY.enter);
      await term.answer('Step 2', '/ll:fix build', KEY.enter);
      await term.answer('Step 3', KEY.enter);
      await term.answer('Repeat the steps until which command passes?', 'npm run build', KEY.enter);
      await term.answer("What's the maximum number of rounds of the steps?", KEY.enter);
      await term.answer('Name for the loop:', 'build-green', KEY.enter);
      await term.answer('Save to .loops/build-green.yaml?', KEY.enter);
      await term.answer('What next?', KEY.down, KEY.down, KEY.enter);
      expect(await term.exited).toBe(0);
    } finally {
      term.kill();
    }
    expect(readFileSync(join(cwd, '.loops', 'build-green.yaml'), 'utf8')).toBe(`name: build-green
description: Run 2 steps in order until \`npm run build\` passes.
initial: step_0
max_iterations: 10
states:
  step_0:
    action: npm run build
    next: step_1
  step_1:
    action: /ll:fix build
    next: check_done
  check_done:
    action: npm run build
    on_success: done
    on_failure: step_0
  done:
    terminal: true
`);
  }, 60_000);

  it('Ctrl-C cancels: exit code 6, nothing written', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-create-cancel-'));
    const term = new Terminal(['create'], cwd, {});
    try {
      await term.answer('What kind of automation loop do you want to create?', KEY.ctrlC);
      expect(await term.exited).toBe(6);
      expect(term.text).toContain('error: cancelled; nothing was written');
    } finally {
      term.kill();
    }
    expect(existsSync(join(cwd, '.loops'))).toBe(false);
  }, 60_000);
});

describe('without a terminal', () => {
  function cli(args: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.once('exit', (code) => resolve({ code: code ?? -1, out, err }));
    });
  }

  it('does not wait for answers: it names the flags it needs', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-create-notty-'));
    const r = await cli(['create'], cwd);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      'error: ll-loop create needs --kind (fix, constraints, metric, sequence or each) when it cannot ask (no terminal)',
    );
    expect(r.err).toContain('fix: give the answers as flags, e.g. ll-loop create --kind fix --check');
    expect(existsSync(join(cwd, '.loops'))).toBe(false);
  }, 60_000);

  it('the flags write the loop and --validate checks it', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-create-notty-'));
    const r = await cli(
      [
        'create',
        '--kind',
        'sequence',
        '--step',
        'shell: npm run build',
        '--step',
        'Fix the build errors',
        '--until',
        'npm run build',
        '--name',
        'build-green',
        '--validate',
      ],
      cwd,
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('✓ Wrote .loops/build-green.yaml (4 states)');
    expect(r.out).toMatch(/✓ .*build-green\.yaml is valid \(4 states\)/);
    expect(readdirSync(join(cwd, '.loops'))).toEqual(['build-green.yaml']);
  }, 60_000);
});
