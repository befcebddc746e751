/**
 * The lit state's fast path (ui/server/live-states.ts): the run's events file tailed from near its
 * end, each `state_enter` handed on with its number (the last one it held, then each new one), a
 * torn line skipped.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { eventsPath } from '../../host/run-files.js';
import { tailStates } from '../../ui/server/live-states.js';

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'll-live-states-'));
  mkdirSync(join(cwd, '.loops', '.running'), { recursive: true });
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

it('hands on the state the file ends in, then each state_enter written after it started', async () => {
  const path = eventsPath(cwd, 'run-1');
  writeFileSync(path, `${JSON.stringify({ event: 'state_enter', state: 'old', seq: 1 })}\n`);
  const seen: Array<[number, string]> = [];
  const stop = tailStates(cwd, 'run-1', (seq, state) => seen.push([seq, state]));
  try {
    appendFileSync(path, `${JSON.stringify({ event: 'route', from: 'old', to: 'new', seq: 2 })}\n{"torn`);
    appendFileSync(path, `\n${JSON.stringify({ event: 'state_enter', state: 'new', seq: 3 })}\n`);
    const deadline = Date.now() + 10_000;
    while (seen.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual([
      [1, 'old'],
      [3, 'new'],
    ]);
  } finally {
    stop();
  }
});
