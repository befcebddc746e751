/**
 * Secrets and untrusted values through the `ll-loop` binary, as a user runs it: `--context` values
 * are data (a `command` parameter stays code), and a secret an action prints is in no file under
 * `.loops/`, the embedded server's database included. Runs the built package (dist/).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { filesUnder } from '../support/leak-scan.js';
import { useOwnServerProject } from '../support/own-server-project.js';

let cwd: string;

const project = useOwnServerProject('ll-loop-e2e-secrets-', { stateDir: true });
const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => project.cli(args, undefined, extraEnv);

beforeAll(() => {
  cwd = project.cwd;
});

describe('ll-loop run: secrets and untrusted values', () => {
  it('--context values are data; a parameter of type command stays code', async () => {
    writeFileSync(
      join(cwd, '.loops', 'inject.yaml'),
      `name: inject
parameters:
  check_cmd: { type: command, default: "true" }
context:
  x: plain
initial: use
states:
  use:
    action: "printf %s \\"\${context.x}\\" > seen.txt; \${context.check_cmd}"
    next: done
  done:
    terminal: true
`,
    );
    const r = await cli([
      'run',
      'inject',
      '--context',
      'x=a"; touch F; echo "$(touch G)',
      '--context',
      'check_cmd=echo ran > H',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'seen.txt'), 'utf8')).toBe('a"; touch F; echo "$(touch G)');
    expect(existsSync(join(cwd, 'F'))).toBe(false);
    expect(existsSync(join(cwd, 'G'))).toBe(false);
    expect(readFileSync(join(cwd, 'H'), 'utf8')).toBe('ran\n');
  });

  it('a --context value that a command parameter’s default or a context value is built from stays data', async () => {
    writeFileSync(
      join(cwd, '.loops', 'derived.yaml'),
      `name: derived
parameters:
  ref: { type: string, default: v1 }
  show_cmd: { type: command, default: "printf '%s|' start \${context.ref} > shown.txt" }
context:
  note: "ref is \${context.ref}"
initial: show
states:
  show:
    action: "\${context.show_cmd}; echo \${context.note} > note.txt"
    next: done
  done:
    terminal: true
`,
    );
    const r = await cli(['run', 'derived', '--context', 'ref=v2; touch P; $(touch Q)', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'shown.txt'), 'utf8')).toBe('start|v2; touch P; $(touch Q)|');
    expect(readFileSync(join(cwd, 'note.txt'), 'utf8')).toBe('ref is v2; touch P; $(touch Q)\n');
    expect(existsSync(join(cwd, 'P'))).toBe(false);
    expect(existsSync(join(cwd, 'Q'))).toBe(false);
  });

  it('a secret the action prints is in no file under .loops/ (the server database included)', async () => {
    const secret = `e2e-${Date.now()}-TOPSECRET`;
    writeFileSync(
      join(cwd, '.loops', 'leak.yaml'),
      `name: leak
initial: use
states:
  use:
    action: "echo \\"token \${env.API_TOKEN}\\"; echo \\"$API_TOKEN\\" >&2"
    capture: out
    next: again
  again:
    action: "echo \\"again $API_TOKEN\\""
    capture: again
    next: done
  done:
    terminal: true
`,
    );
    const r = await cli(['run', 'leak', '--json'], { API_TOKEN: secret });
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { captured: Record<string, { output: string; stderr: string }> };
    expect(result.captured.out).toMatchObject({ output: 'token ***', stderr: '***' });
    expect(result.captured.again?.output).toBe('again ***');
    expect(r.stdout + r.stderr).not.toContain(secret);
    const files = filesUnder(join(cwd, '.loops'));
    expect(files.some((f) => f.endsWith('temporal.db'))).toBe(true);
    for (const f of files) expect(readFileSync(f).includes(Buffer.from(secret)), f).toBe(false);
  });
});
