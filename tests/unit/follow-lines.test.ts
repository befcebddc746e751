/**
 * `logs --follow`'s streamed lines (client/commands/follow-lines.ts) over real live files: whole
 * lines as they are written, a line cut between two writes printed once whole, escapes shown not
 * obeyed, a sub-loop's action named by its loop, and the end of a streamed action known once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { TimedEvent } from '../../fsm/run/events.js';
import { LiveOutputFile, liveOutputPath } from '../../activities/live-output.js';
import { runningLogPath } from '../../activities/run-action.js';
import { streamedLines } from '../../client/commands/follow-lines.js';

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'll-follow-lines-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

let seq = 0;
const ev = (fields: Record<string, unknown>): TimedEvent =>
  ({ ...fields, seq: ++seq, ts: '2026-01-01T00:00:00.000Z' }) as unknown as TimedEvent;

async function until(what: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!what() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

it("prints a running action's lines as they come, and its end once", async () => {
  let out = '';
  const lines = streamedLines('run-1', cwd, { out: (t) => (out += t) });
  try {
    const file = new LiveOutputFile(liveOutputPath(runningLogPath(cwd, 'run-1', '2-talk.log')));
    lines.onEvent(ev({ event: 'state_enter', state: 'talk', iteration: 3 }));
    lines.onEvent(ev({ event: 'action_start', state: 'talk', action: 'x', action_type: 'shell' }));
    file.write(Buffer.from('one\ntw'));
    await until(() => out.includes('one'));
    expect(out).toBe('=== talk · pass 3 · running ===\none\n');
    file.write(Buffer.from('o \u001b[2J\nlast'));
    file.close();
    lines.onEvent(ev({ event: 'action_complete', state: 'talk', exit_code: 0, duration_ms: 5 }));
    expect(out).toBe('=== talk · pass 3 · running ===\none\ntwo \\x1b[2J\nlast\n');
    expect(lines.wasStreamed('run-1')).toBe(true);
    expect(lines.wasStreamed('run-1')).toBe(false);
  } finally {
    lines.close();
  }
});

it("names a sub-loop's action by its loop", async () => {
  let out = '';
  const lines = streamedLines('run-1', cwd, { out: (t) => (out += t) });
  try {
    const sub = { depth: 1, workflow_id: 'run-1.s.2' };
    const file = new LiveOutputFile(liveOutputPath(runningLogPath(cwd, 'run-1.s.2', '1-hello.log')));
    lines.onEvent(ev({ event: 'loop_start', loop: 'inner', initial: 'hello', max_iterations: 5, subloop: sub }));
    lines.onEvent(ev({ event: 'action_start', state: 'hello', action: 'x', action_type: 'shell', subloop: sub }));
    file.write(Buffer.from('hi\n'));
    await until(() => out.includes('hi'));
    expect(out).toBe('=== inner › hello · pass 1 · running ===\nhi\n');
    file.close();
  } finally {
    lines.close();
  }
});
