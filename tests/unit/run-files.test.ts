/**
 * The events file is one stream per run: a writer appends an event only when its number is new,
 * and a new writer (a restarted worker) learns the last number from the file itself.
 */
import { mkdtempSync, readFileSync, writeFileSync, appendFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunStreamEvent } from '../../fsm/run/events.js';
import { eventsPath, lastSeqIn, RunFiles, runningDir } from '../../host/run-files.js';

const event = (seq: number): RunStreamEvent => ({
  event: 'state_enter',
  state: 'a',
  iteration: seq,
  seq,
  ts: new Date(seq * 1000).toISOString(),
});
const seqs = (cwd: string, id: string) =>
  readFileSync(eventsPath(cwd, id), 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { seq: number }).seq);

describe('the events file', () => {
  it('never writes a number twice, within one writer or after a restart', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-loop-files-'));
    const first = new RunFiles(cwd, 'run-1');
    for (const n of [1, 2, 3, 2, 3]) first.appendEvent(event(n));
    await first.close();
    // A restarted worker re-runs the last workflow task: the same numbers come again, then new ones.
    const second = new RunFiles(cwd, 'run-1');
    expect([2, 3, 4, 5].map((n) => second.appendEvent(event(n)))).toEqual([false, false, true, true]);
    await second.close();
    expect(seqs(cwd, 'run-1')).toEqual([1, 2, 3, 4, 5]);
  });

  it('finds the last number past a torn last line', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-loop-files-'));
    mkdirSync(runningDir(cwd), { recursive: true });
    writeFileSync(eventsPath(cwd, 'r'), `${JSON.stringify(event(1))}\n${JSON.stringify(event(2))}\n`);
    appendFileSync(eventsPath(cwd, 'r'), '{"event":"state_ent');
    expect(lastSeqIn(eventsPath(cwd, 'r'))).toBe(2);
    expect(lastSeqIn(join(cwd, 'missing.jsonl'))).toBe(0);
  });

  it('starts a fresh line after a line a crash cut short', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-loop-files-'));
    mkdirSync(runningDir(cwd), { recursive: true });
    writeFileSync(eventsPath(cwd, 'r'), `${JSON.stringify(event(1))}\n{"event":"state_ent`);
    const files = new RunFiles(cwd, 'r');
    files.appendEvent(event(2));
    await files.close();
    const lines = readFileSync(eventsPath(cwd, 'r'), 'utf8').split('\n');
    expect(lines[1]).toBe('{"event":"state_ent');
    expect(JSON.parse(lines[2]!)).toMatchObject({ seq: 2 });
  });
});
