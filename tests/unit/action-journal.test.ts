/**
 * The journal of completed actions (activities/action-journal.ts) as files: what a call finds,
 * how entries are written, and the sweep. The run-level promise (a lost completion does not run
 * an action again) is tests/integration/action-journal.test.ts.
 */
import { mkdtempSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  burstActionKey,
  journalFile,
  readBurstJournal,
  readJournal,
  sweepJournal,
  SWEEP_EVERY_MS,
  writeJournal,
  JOURNAL_KEEP_MS,
} from '../../activities/action-journal.js';
import type { ActionResult } from '../../fsm/types.js';

const result: ActionResult = { output: 'token=***\n', stderr: '', exit_code: 0, duration_ms: 12 };
const key = { workflowId: 'fix-lint-20260101-abc', runId: 'r-1', activityId: '7' };

describe('the action journal', () => {
  it('a call finds its own entry only: another activity id, run id or workflow id finds none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'll-journal-'));
    expect(readJournal(dir, key)).toBeUndefined();
    writeJournal(dir, key, 'check', result);
    expect(readJournal(dir, key)).toEqual(result);
    expect(readJournal(dir, { ...key, activityId: '8' })).toBeUndefined();
    expect(readJournal(dir, { ...key, runId: 'r-2' })).toBeUndefined();
    expect(readJournal(dir, { ...key, workflowId: 'other' })).toBeUndefined();
  });

  it("a burst's journal is its actions in order from its first, up to the first missing, at most `max`", () => {
    const dir = mkdtempSync(join(tmpdir(), 'll-journal-'));
    const burst = { ...key, activityId: '3' };
    expect(readBurstJournal(dir, burst, 100)).toEqual([]);
    writeJournal(dir, burstActionKey(burst, 0), 'a', result);
    writeJournal(dir, burstActionKey(burst, 1), 'b', { ...result, exit_code: 1 });
    writeJournal(dir, burstActionKey(burst, 3), 'd', result);
    // Another burst of the run, and a single action under the burst's activity id, are not this burst's.
    writeJournal(dir, burstActionKey({ ...burst, activityId: '4' }, 2), 'c', result);
    writeJournal(dir, burst, 'c', result);
    expect(readBurstJournal(dir, burst, 100)).toEqual([
      { state: 'a', result },
      { state: 'b', result: { ...result, exit_code: 1 } },
    ]);
    expect(readBurstJournal(dir, burst, 1)).toEqual([{ state: 'a', result }]);
    expect(readBurstJournal(dir, { ...burst, runId: 'r-2' }, 100)).toEqual([]);
    expect(readdirSync(dirname(journalFile(dir, burst))).sort()).toEqual([
      '3.json',
      'burst-3-0.json',
      'burst-3-1.json',
      'burst-3-3.json',
      'burst-4-2.json',
    ]);
  });

  it("entries are the user's alone and leave no temporary file behind", () => {
    const dir = mkdtempSync(join(tmpdir(), 'll-journal-'));
    writeJournal(dir, key, 'check', result);
    const file = journalFile(dir, key);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
    expect(readdirSync(dirname(file))).toEqual(['7.json']);
  });

  it('the sweep removes runs untouched for longer than the keep time, and only those', () => {
    const dir = mkdtempSync(join(tmpdir(), 'll-journal-'));
    writeJournal(dir, key, 'check', result);
    const recent = { ...key, workflowId: 'recent' };
    writeJournal(dir, recent, 'check', result);
    const old = (Date.now() - JOURNAL_KEEP_MS - 60_000) / 1000;
    utimesSync(dirname(journalFile(dir, key)), old, old);
    expect(sweepJournal(dir)).toBe(1);
    expect(readJournal(dir, key)).toBeUndefined();
    expect(readJournal(dir, recent)).toEqual(result);
    expect(sweepJournal(join(dir, 'missing'))).toBe(0);
  });

  it('a journal is swept at most once an hour: a worker starting right after another stats no run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'll-journal-'));
    const now = Date.now();
    expect(sweepJournal(dir, JOURNAL_KEEP_MS, now)).toBe(0);
    writeJournal(dir, key, 'check', result);
    const old = (now - JOURNAL_KEEP_MS - 60_000) / 1000;
    utimesSync(dirname(journalFile(dir, key)), old, old);
    expect(sweepJournal(dir, JOURNAL_KEEP_MS, now + SWEEP_EVERY_MS - 1000)).toBe(0);
    expect(readJournal(dir, key)).toEqual(result);
    expect(sweepJournal(dir, JOURNAL_KEEP_MS, now + SWEEP_EVERY_MS + 1000)).toBe(1);
    expect(readJournal(dir, key)).toBeUndefined();
    // The mark is no run of its own.
    expect(readdirSync(dir)).toEqual(['.swept']);
  });
});
