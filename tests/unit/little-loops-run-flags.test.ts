/**
 * little-loops' forms of `ll-loop run`, parsed as the command (and the checkout's worker, for an
 * early start) parses them: the positional input (a JSON object's keys, else the text into the
 * loop's `input_key`), `-n`/`--max-steps`, `--delay`, `--handoff-threshold`, `--builtin`,
 * `--follow`/`-f` and `--program-md`; and their refusals, each naming the flag, the value and
 * the fix.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runOptionsFromArgv } from '../../client/commands/run-flags.js';
import { inputPairs } from '../../client/commands/run-input.js';
import { programMdValues } from '../../client/commands/program-md.js';
import { loopInputs } from '../../loader/loop-inputs.js';
import { builtinLoopFile } from '../../loader/catalog.js';
import { parseContextArgs } from '../../loader/load.js';
import { UsageError } from '../../errors/errors.js';
import { asksBackground } from '../../runs/start/early-start.js';

/** A project with `greet` (uses who, mood and input) and `plain` (uses no context key). */
function project(): string {
  const cwd = mkdtempSync(join(tmpdir(), 'll-loop-ll-flags-'));
  mkdirSync(join(cwd, '.loops'));
  writeFileSync(
    join(cwd, '.loops', 'greet.yaml'),
    `name: greet
initial: hello
context:
  who: world
  mood: calm
states:
  hello:
    action: "echo \${context.who} \${context.mood} \${context.input}"
    next: done
  done:
    terminal: true
`,
  );
  writeFileSync(
    join(cwd, '.loops', 'plain.yaml'),
    'name: plain\ninitial: a\nstates:\n  a:\n    action: "echo hi"\n    next: b\n  b:\n    terminal: true\n',
  );
  return cwd;
}

const parse = (cwd: string, ...args: string[]) => runOptionsFromArgv(['run', ...args], cwd);
/** The context a command line gives, as the loader reads it (later pairs win). */
const contextOf = (cwd: string, ...args: string[]) => parseContextArgs(parse(cwd, ...args).context);

describe('run <loop> [input]', () => {
  const cwd = project();
  it.each([
    ['a JSON object: its keys', ['greet', '{"who": "json", "mood": "glad"}'], { who: 'json', mood: 'glad' }],
    [
      'a value that is not a string: its JSON text',
      ['greet', '{"who": 3, "mood": [1, 2]}'],
      { who: '3', mood: '[1,2]' },
    ],
    ['text: into input_key (input)', ['greet', 'fix the lint warnings'], { input: 'fix the lint warnings' }],
    ['JSON that is no object: as text', ['greet', '[1, 2]'], { input: '[1, 2]' }],
    ['a JSON string: as typed', ['greet', '"quoted"'], { input: '"quoted"' }],
    ['--context wins over the input', ['greet', '{"who": "a"}', '--context', 'who=b'], { who: 'b' }],
    ['an unused key with --context-allow-unknown', ['plain', 'text', '--context-allow-unknown'], { input: 'text' }],
  ])('%s', (_what, args, want) => {
    expect(contextOf(cwd, ...args)).toEqual(want);
  });

  it.each([
    [
      'text for a loop that never reads input_key',
      ['plain', 'EPIC-1'],
      /the input "EPIC-1" goes to context\.input .*loop "plain" does not use; it uses no context keys/,
    ],
    [
      'an object key the loop does not use',
      ['greet', '{"whoo": "x"}'],
      /loop "greet" does not use "whoo" \(did you mean "who"\?\); it uses input, mood, who/,
    ],
    ['an empty object', ['greet', '{}'], /is an empty JSON object: it sets no context key/],
    ['a key with "="', ['greet', '{"a=b": "x"}'], /"a=b" cannot be a context key/],
    ['a key __proto__', ['greet', '{"__proto__": "x"}'], /"__proto__" cannot be a context key/],
    ['a second positional', ['greet', 'fix', 'lint'], /unexpected arguments: lint \(run takes a loop and one input\)/],
  ])('refuses %s', (_what, args, message) => {
    expect(() => parse(cwd, ...args)).toThrow(message);
  });

  it("goes to the loop's input_key (read from the loop as written, default input)", () => {
    expect(inputPairs('some topic', { inputKey: 'topic' })).toEqual([['topic', 'some topic']]);
    expect(inputPairs('{"k": "v"}', { inputKey: 'topic' })).toEqual([['k', 'v']]);
    const dir = project();
    const file = join(dir, '.loops', 'keyed.yaml');
    writeFileSync(file, 'name: keyed\ninput_key: topic\ninitial: a\nstates:\n  a:\n    terminal: true\n');
    expect(loopInputs(file, dir)).toMatchObject({ name: 'keyed', inputKey: 'topic' });
    expect(loopInputs(join(dir, '.loops', 'greet.yaml'), dir)).toMatchObject({ inputKey: 'input' });
  });
});

describe("run's other little-loops flags", () => {
  const cwd = project();
  it.each([
    ['-n N', ['greet', '-n', '5'], { maxSteps: 5 }],
    ['--max-steps N', ['greet', '--max-steps', '7'], { maxSteps: 7 }],
    ['--delay seconds', ['greet', '--delay', '2.5'], { backoff: 2.5 }],
    ['--delay 0', ['greet', '--delay', '0'], { backoff: 0 }],
    ['--delay a duration', ['greet', '--delay', '1m'], { backoff: 60 }],
    ['--handoff-threshold N', ['greet', '--handoff-threshold', '80'], { handoffThreshold: 80 }],
  ])('%s sets the loop field for the run', (_what, args, want) => {
    expect(parse(cwd, ...args).definitionOverrides).toEqual(want);
  });

  it('sets no loop field without them, and --max-iterations stays its own', () => {
    const opts = parse(cwd, 'greet', '--max-iterations', '4');
    expect(opts.definitionOverrides).toBeUndefined();
    expect(opts.maxIterations).toBe(4);
  });

  it('--builtin runs the built-in loop of that name, never a project file', () => {
    writeFileSync(
      join(cwd, '.loops', 'fix-lint.yaml'),
      'name: fix-lint\ninitial: a\nstates:\n  a:\n    terminal: true\n',
    );
    expect(parse(cwd, 'fix-lint').target).toBe('fix-lint');
    expect(parse(cwd, 'fix-lint', '--builtin').target).toBe(builtinLoopFile('fix-lint'));
  });

  it('--follow and -f are accepted (a run in the foreground shows its progress anyway)', () => {
    expect(parse(cwd, 'greet', '--follow').target).toBe('greet');
    expect(parse(cwd, 'greet', '-f').target).toBe('greet');
  });

  it.each([
    [
      ['greet', '--delay', '-1'],
      /--delay must be a number of seconds \(0 or more\) or a duration, got "-1"/,
      /e\.g\. --delay 2/,
    ],
    [['greet', '--delay', 'soon'], /--delay must be .*got "soon"/, /--delay 1\.5/],
    [['greet', '-n', '0'], /--max-steps must be a whole number from 1 .*got "0"/, /--max-steps 50/],
    [['greet', '--max-steps', '2.5'], /--max-steps must be a whole number .*got "2\.5"/, /--max-steps 50/],
    [
      ['greet', '--handoff-threshold', '101'],
      /--handoff-threshold must be a whole number from 1 to 100 .*got "101"/,
      /--handoff-threshold 80/,
    ],
    [['greet', '--handoff-threshold', '0'], /--handoff-threshold .*got "0"/, /--handoff-threshold 80/],
    [['.loops/greet.yaml', '--builtin'], /--builtin takes the name of a built-in loop, not a path/, /drop --builtin/],
    [
      ['fix-lnt', '--builtin'],
      /no built-in loop named "fix-lnt" \(did you mean "fix-lint"\?\); built-in: .*fix-lint/,
      /ll-loop list --builtin/,
    ],
    [['greet', '--follow', '--background'], /--follow and --background contradict/, /ll-loop status <run id> --follow/],
    [['greet', '-f', '--json'], /--follow and --json contradict .*shows no progress/, /drop one of them/],
    [['greet', '--program-md', 'nope.md'], /--program-md nope\.md: .*nope\.md does not exist/, /steering file/],
  ])('refuses %j', (args, message, fix) => {
    let caught: unknown;
    try {
      parse(cwd, ...args);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect((caught as UsageError).message).toMatch(message);
    expect((caught as UsageError).fix).toMatch(fix);
  });
});

describe('--program-md and .ll/program.md', () => {
  const steering = `# Steering

## Directive
Make the tests pass.

## Targets
- src/a.ts
- src/b.ts

## Benchmark
who: bench
unused_metric: 3

## Notes
not a value
`;

  it('reads the sections little-loops reads, whatever their case', () => {
    expect(programMdValues(steering)).toEqual([
      ['directive', 'Make the tests pass.'],
      ['targets', 'src/a.ts src/b.ts'],
      ['who', 'bench'],
      ['unused_metric', '3'],
    ]);
    expect(programMdValues('## budget\n$5\n## CONSTRAINTS\nno network\n## Targets\njust text\n')).toEqual([
      ['budget', '$5'],
      ['constraints', 'no network'],
      ['targets', 'just text'],
    ]);
    expect(programMdValues('no sections at all')).toEqual([]);
  });

  it('gives a run the keys its loop uses, before --context; .ll/program.md when no flag names a file', () => {
    const cwd = project();
    writeFileSync(join(cwd, 'steer.md'), steering);
    expect(contextOf(cwd, 'greet', '--program-md', 'steer.md')).toEqual({ who: 'bench' });
    expect(contextOf(cwd, 'greet', '--program-md', 'steer.md', '--context', 'who=cli')).toEqual({ who: 'cli' });
    expect(contextOf(cwd, 'greet')).toEqual({});
    mkdirSync(join(cwd, '.ll'));
    writeFileSync(join(cwd, '.ll', 'program.md'), '## Benchmark\nmood: from-default\n');
    expect(contextOf(cwd, 'greet')).toEqual({ mood: 'from-default' });
    expect(contextOf(cwd, 'plain')).toEqual({});
  });
});

describe("little-loops' short forms of run's flags: -b, -q, -v and --qt", () => {
  const cwd = project();
  it.each([
    ['-b', ['greet', '-b'], { background: true }],
    ['-q (its --queue)', ['greet', '-q'], { queue: true }],
    ['-v', ['greet', '-v'], { detail: 'verbose' }],
    ['--qt (its second name of --quiet)', ['greet', '--qt'], { detail: 'quiet' }],
    ['-bq grouped', ['greet', '-bq'], { background: true, queue: true }],
  ])('%s', (_what, args, want) => {
    expect(parse(cwd, ...args)).toMatchObject(want);
  });

  it('-v with --qt contradict each other; -f with --qt too', () => {
    expect(() => parse(cwd, 'greet', '-v', '--qt')).toThrow(/--verbose and --quiet contradict each other/);
    expect(() => parse(cwd, 'greet', '-f', '--qt')).toThrow(/--follow and --qt contradict each other/);
  });

  it("the early start tells a background run as the parser does (it prints the worker's queued answer)", () => {
    expect(asksBackground(['run', 'greet', '-b'])).toBe(true);
    expect(asksBackground(['run', 'greet', '-qb'])).toBe(true);
    expect(asksBackground(['run', 'greet', '--background'])).toBe(true);
    expect(asksBackground(['run', 'greet', '-q', '-v'])).toBe(false);
    // -c and -n take a value: a "b" after them in the group is that value.
    expect(asksBackground(['run', 'greet', '-cb=1'])).toBe(false);
    expect(asksBackground(['run', 'greet', '--', '-b'])).toBe(false);
  });
});
