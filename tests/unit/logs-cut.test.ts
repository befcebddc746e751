/**
 * `ll-loop logs` of an action whose output files cut bytes from the middle: the note above the
 * output says how much the stream printed and how much of it is gone, read from the cut note the
 * worker's capped file writes (activities/capped-log.ts), so writer and reader stay in step; an
 * output the files hold whole says so.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CappedLogFile } from '../../activities/capped-log.js';
import { actionLogCollector, type ActionLogRecord } from '../../runs/follow/action-logs.js';
import { printRecord } from '../../client/commands/logs-print.js';
import type { TimedEvent } from '../../fsm/run/events.js';

/** A stream's file as the worker writes it, after `bytes` bytes of `z`. */
async function written(path: string, bytes: number): Promise<string> {
  const file = new CappedLogFile(path, () => undefined);
  const chunk = Buffer.alloc(64 * 1024, 'z');
  for (let left = bytes; left > 0; left -= chunk.length)
    file.write(left >= chunk.length ? chunk : chunk.subarray(0, left));
  await file.finish();
  return path;
}

/** The record `logs` makes of one action whose result points at these files. */
function recordOf(log_file: string, stderr_file: string): ActionLogRecord {
  const records: ActionLogRecord[] = [];
  const collect = actionLogCollector('r', (r) => records.push(r));
  const ts = '2026-01-01T00:00:00.000Z';
  collect({ event: 'state_enter', state: 'big', iteration: 1, seq: 1, ts } as TimedEvent);
  collect({
    event: 'action_complete',
    state: 'big',
    exit_code: 0,
    duration_ms: 5,
    seq: 2,
    ts,
    action_output: { output: 'tail', stderr: '', exit_code: 0, truncated: true, log_file, stderr_file },
  } as TimedEvent);
  expect(records).toHaveLength(1);
  return records[0]!;
}

function printed(r: ActionLogRecord): string {
  let text = '';
  printRecord(r, (t) => (text += t));
  return text;
}

describe('logs of an output cut in the middle', () => {
  it('says how large the stream was and how much was cut, and that the middle is kept nowhere', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'll-loop-logs-cut-'));
    const out = await written(join(dir, '2-big.log'), 100 * 1024 * 1024);
    const err = await written(join(dir, '2-big.stderr.log'), 10);
    const r = recordOf(out, err);
    expect(r.cut).toEqual({ stdout: { total_bytes: 100 * 1024 * 1024, cut_bytes: 98 * 1024 * 1024 } });
    const head = printed(r).split('\n').slice(0, 2);
    expect(head[1]).toBe(
      `(from ${out}, ${err}: stdout printed 100.0 MiB, 98.0 MiB cut from the middle (kept the first and last MiB); the middle is kept nowhere)`,
    );
    // The file itself says where it cut.
    expect(readFileSync(out, 'utf8')).toContain('[ll-loop: 102760448 bytes cut here;');
  });

  it('an output its files hold whole is said to be whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'll-loop-logs-cut-'));
    const out = await written(join(dir, '2-big.log'), 100_000);
    const err = await written(join(dir, '2-big.stderr.log'), 10);
    const r = recordOf(out, err);
    expect(r.cut).toBeUndefined();
    expect(printed(r).split('\n')[1]).toBe(`(from ${out}, ${err}: the whole output)`);
  });
});
