/**
 * `--context-file` through the `ll-loop` binary: a value far beyond one argument's 128 KiB (a
 * 1 MB file) reaches the action byte for byte, compared by sha256. Runs the built package (dist/).
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useOwnServerProject } from '../support/own-server-project.js';

let cwd: string;

const project = useOwnServerProject('ll-loop-e2e-context-file-', { stateDir: true });
const cli = (args: string[]) => project.cli(args);

beforeAll(() => {
  cwd = project.cwd;
});

describe('ll-loop run --context-file', () => {
  it('hands a 1 MB value to the action intact', async () => {
    writeFileSync(
      join(cwd, '.loops', 'big.yaml'),
      'name: big\ninitial: sum\nstates:\n  sum:\n    action: \'printf %s "${context.doc}" | sha256sum | cut -c1-64\'\n    capture: sum\n    next: done\n  done:\n    terminal: true\n',
    );
    const doc = `${'ünï "$(x)" `y` \\ line\n'.repeat(55_000)}end\n\n`;
    expect(Buffer.byteLength(doc)).toBeGreaterThan(1_000_000);
    writeFileSync(join(cwd, 'doc.txt'), doc);
    // The same value as an argument cannot even be passed (Linux caps one argument at 128 KiB).
    const r = await cli(['run', 'big', '--context-file', 'doc=doc.txt', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { captured: Record<string, { output: string }> };
    expect(result.captured.sum?.output).toBe(createHash('sha256').update(doc, 'utf8').digest('hex'));
  }, 180_000);
});
