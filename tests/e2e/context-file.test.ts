/**
 * `--context-file` through the `ll-loop` binary: a value far beyond one argument's 128 KiB (a
 * 1 MB file) reaches the action byte for byte, compared by sha256. Runs the built package (dist/).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliBinary } from '../support/cli.js';
import { freePort } from '../support/processes.js';

let cwd: string;
let env: NodeJS.ProcessEnv;

const cli = (args: string[]) => runCliBinary(args, { cwd, env });

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'll-loop-e2e-context-file-'));
  mkdirSync(join(cwd, '.loops'));
  const { TEMPORAL_ADDRESS: _drop, ...rest } = process.env;
  env = {
    ...rest,
    LL_TEMPORAL_PORT: String(await freePort()),
    LL_TEMPORAL_UI_PORT: String(await freePort()),
    LL_STATE_DIR: join(cwd, 'state'),
    NO_COLOR: '1',
  };
});

afterAll(() => {
  cli(['worker', 'stop']);
  cli(['server', 'stop']);
});

describe('ll-loop run --context-file', () => {
  it('hands a 1 MB value to the action intact', () => {
    writeFileSync(
      join(cwd, '.loops', 'big.yaml'),
      'name: big\ninitial: sum\nstates:\n  sum:\n    action: \'printf %s "${context.doc}" | sha256sum | cut -c1-64\'\n    capture: sum\n    next: done\n  done:\n    terminal: true\n',
    );
    const doc = `${'ünï "$(x)" `y` \\ line\n'.repeat(55_000)}end\n\n`;
    expect(Buffer.byteLength(doc)).toBeGreaterThan(1_000_000);
    writeFileSync(join(cwd, 'doc.txt'), doc);
    // The same value as an argument cannot even be passed (Linux caps one argument at 128 KiB).
    const r = cli(['run', 'big', '--context-file', 'doc=doc.txt', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { captured: Record<string, { output: string }> };
    expect(result.captured.sum?.output).toBe(createHash('sha256').update(doc, 'utf8').digest('hex'));
  }, 180_000);
});
