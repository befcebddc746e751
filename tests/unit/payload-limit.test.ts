/**
 * A loop too large for a run's input (Temporal's 2 MiB payload limit) is refused the same way by
 * `validate`, `show`, `run` and `run --dry-run`, at once, naming the limit, the size and the fix,
 * whether the bulk is in the file or in a context value; a loop just under it loads.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_DEFINITION_BYTES } from '../../loader/payload-limit.js';
import { wrapText } from '../../client/show/wrap.js';
import { runCliInProcess } from '../support/cli.js';

// A unit test starts no server: were the check ever lost, `run` must fail to connect, not start one.
process.env.TEMPORAL_ADDRESS = '127.0.0.1:1';

const root = mkdtempSync(join(tmpdir(), 'll-loop-payload-'));
mkdirSync(join(root, '.loops'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function loopWithDescription(name: string, chars: number): void {
  writeFileSync(
    join(root, '.loops', `${name}.yaml`),
    `name: ${name}\ndescription: "${'x'.repeat(chars)}"\ninitial: a\ncontext:\n  note: short\nstates:\n  a:\n    action: echo \${context.note}\n    next: done\n  done:\n    terminal: true\n`,
  );
}

loopWithDescription('huge', 2_200_000);
loopWithDescription('fits', MAX_DEFINITION_BYTES - 4_096);

const refusal =
  /error: the loop is 2\.1 MiB as a run's input .* over the 1\.8 MiB a run can carry: Temporal refuses payloads over 2\.0 MiB/;

describe('a loop over the payload limit', () => {
  for (const argv of [
    ['validate', 'huge'],
    ['show', 'huge'],
    ['run', 'huge'],
    ['run', 'huge', '--dry-run'],
  ]) {
    it(`ll-loop ${argv.join(' ')}: refused with the size, the limit and the fix`, async () => {
      const r = await runCliInProcess(argv, { cwd: root });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(refusal);
      expect(r.stderr).toMatch(/huge\.yaml:1:1/);
      expect(r.stderr).toMatch(/fix: keep large text in files the actions read/);
    });
  }

  it('counts context values given on the command line', async () => {
    const r = await runCliInProcess(['validate', 'fits'], { cwd: root });
    expect(r.code).toBe(0);
    const big = await runCliInProcess(['run', 'fits', '--dry-run', '--context', `note=${'y'.repeat(8_192)}`], {
      cwd: root,
    });
    expect(big.code).toBe(1);
    expect(big.stderr).toMatch(/over the 1\.8 MiB a run can carry/);
  });
});

describe('show wraps a word of megabytes', () => {
  it('in pieces that keep every character, a line each', () => {
    const word = 'ab/'.repeat(700_000);
    const lines = wrapText(word, 80);
    expect(lines.join('')).toBe(word);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(80);
    expect(lines.length).toBeGreaterThan(word.length / 80);
  });
});
