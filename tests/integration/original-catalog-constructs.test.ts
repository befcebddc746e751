/**
 * Constructs of little-loops' catalog on a real workflow (loops written here): a `with:` child's
 * captured value read under the sub-loop state's name and written verbatim through a quoted
 * here-document by bash on the worker; a value that would close that here-document is refused
 * there; and `action_stall` stalling a repeating state.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTemporal, definition, project, runLoop } from './harness.js';

afterAll(closeTemporal);

const KID = `name: kid
description: captures the file its parent names
initial: make
context:
  file: ""
states:
  make:
    action: cat "\${context.file}"
    capture: x
    next: done
  done: { terminal: true }
`;

const parent = () =>
  definition({
    name: 'parent',
    description: 'writes its child capture through a quoted here-document',
    initial: 'kid',
    states: {
      kid: { loop: 'kid', with: { file: 'input.txt' }, on_success: 'write', on_failure: 'failed' },
      write: {
        action: 'cat > kid.txt <<\'EOF\'\n${captured.kid.x.output}\nEOF\necho "${captured.kid.terminated_by}"',
        capture: 'written',
        next: 'spin',
        on_error: 'refused',
      },
      spin: {
        action: 'echo same',
        capture: 's',
        evaluate: { type: 'action_stall', track: ['captured.s.output'], max_repeat: 2 },
        on_yes: 'spin',
        on_no: 'done',
      },
      done: { terminal: true },
      refused: { terminal: true, failure: true },
      failed: { terminal: true, failure: true },
    },
  });

/** A project with the child loop, whose input file holds `text`. */
function withKid(text: string): string {
  const p = project();
  mkdirSync(join(p.cwd, '.loops'));
  writeFileSync(join(p.cwd, '.loops', 'kid.yaml'), KID);
  writeFileSync(join(p.cwd, 'input.txt'), text);
  return p.cwd;
}

describe("little-loops' catalog constructs on a real run", () => {
  it("the child's capture under the state's name reaches bash verbatim; action_stall ends the spin", async () => {
    const text = `it's $(touch pwned) \`id\` "q"\n  EOF  `;
    const cwd = withKid(text);
    const run = await runLoop(parent(), { cwd });
    expect(run.result).toMatchObject({ final_state: 'done', failure: false });
    expect(readFileSync(join(cwd, 'kid.txt'), 'utf8')).toBe(`${text}\n`);
    expect(() => readFileSync(join(cwd, 'pwned'))).toThrow();
    expect(run.result.captured.written!.output).toBe('terminal');
    const spins = run.events.filter((e) => e.event === 'evaluate' && e.state === 'spin').map((e) => e.verdict);
    expect(spins).toEqual(['yes', 'yes', 'no']);
  });

  it('a captured value with the delimiter on a line of its own is refused: its error route, nothing run', async () => {
    const cwd = withKid('fine\nEOF\ntouch pwned\n');
    const run = await runLoop(parent(), { cwd });
    expect(run.result).toMatchObject({ final_state: 'refused' });
    const error = run.events.find((e) => e.event === 'action_error' && e.state === 'write');
    expect(String(error?.error)).toMatch(/ends its quoted here-document/);
    expect(() => readFileSync(join(cwd, 'kid.txt'))).toThrow();
    expect(() => readFileSync(join(cwd, 'pwned'))).toThrow();
  });
});
