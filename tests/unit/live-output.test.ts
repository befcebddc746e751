/**
 * A running action's live output (activities/live-output.ts) and its reader (runs/find/
 * live-output.ts): written as it comes, removed at the end, bounded, and read in order to its last
 * byte even when the file is removed under the reader.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CappedLogFile } from '../../activities/capped-log.js';
import { LiveOutputFile, liveOutputPath } from '../../activities/live-output.js';
import { OutputCapture } from '../../activities/output-buffer.js';
import { runningLogPath } from '../../activities/run-action.js';
import { findLiveFile, LiveOutputReader } from '../../runs/follow/live-output.js';

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'll-live-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

const logOf = (step: number, state: string): string =>
  runningLogPath(cwd, 'loop-20260101T000000', `${step}-${state}.log`);

describe('live output file', () => {
  it('holds the masked output while the action runs and is gone after it', async () => {
    const logPath = logOf(3, 'build');
    const capture = new OutputCapture({
      logPath,
      livePath: liveOutputPath(logPath),
      stdoutTailBytes: 1024,
      stderrTailBytes: 1024,
      secrets: [Buffer.from('hunter2')],
      pause: () => undefined,
      resume: () => undefined,
    });
    capture.push('stdout', Buffer.from('one hunter2\n'));
    capture.push('stderr', Buffer.from('two\n'));
    const live = liveOutputPath(logPath);
    expect(live.endsWith('3-build.live.log')).toBe(true);
    // Made once the action has run a moment, with what it printed until then.
    const deadline = Date.now() + 10_000;
    while (!existsSync(live) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    // The masker holds back what could be the start of a secret: the first line is complete.
    expect(readFileSync(live, 'utf8')).toContain('one ***\n');
    expect(readFileSync(live, 'utf8')).not.toContain('hunter2');
    expect(statSync(live).mode & 0o777).toBe(0o600);
    await capture.finish();
    expect(existsSync(live)).toBe(false);
    // The run's directory the file made is gone with it.
    expect(existsSync(dirname(live))).toBe(false);
  });

  it("removing it at the action's end leaves the run's full log file in place, opened or not yet", async () => {
    // The live file made the run's directory; the output then outgrew its tail, so the log file
    // was made; the action ended at once and the live file was closed (removing the directory if
    // empty) before the log file's stream had opened.
    const logPath = logOf(7, 'burst');
    const live = new LiveOutputFile(liveOutputPath(logPath));
    const log = new CappedLogFile(logPath, () => undefined);
    log.write(Buffer.from('all of it\n'));
    live.close();
    await log.finish();
    expect(log.error).toBeUndefined();
    expect(readFileSync(logPath, 'utf8')).toBe('all of it\n');
  });

  it('is never made for an action that ends at once', async () => {
    const logPath = logOf(1, 'quick');
    const capture = new OutputCapture({
      logPath,
      livePath: liveOutputPath(logPath),
      stdoutTailBytes: 1024,
      stderrTailBytes: 1024,
      pause: () => undefined,
      resume: () => undefined,
    });
    capture.push('stdout', Buffer.from('small\n'));
    await capture.finish();
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('starts over past its cap', () => {
    const path = join(cwd, 'x.live.log');
    const file = new LiveOutputFile(path, 10);
    file.write(Buffer.from('12345678'));
    file.write(Buffer.from('abcd'));
    expect(readFileSync(path, 'utf8')).toBe('abcd');
    file.close();
    expect(existsSync(path)).toBe(false);
  });
});

describe('live output reader', () => {
  it('finds the newest action of the state and reads it to its end after its removal', async () => {
    const older = new LiveOutputFile(liveOutputPath(logOf(2, 'check')));
    const file = new LiveOutputFile(liveOutputPath(logOf(12, 'check')));
    expect(findLiveFile({ cwd, instanceId: 'loop-20260101T000000', state: 'check' })).toBe(
      liveOutputPath(logOf(12, 'check')),
    );
    let text = '';
    const reader = new LiveOutputReader(
      { cwd, instanceId: 'loop-20260101T000000', state: 'check' },
      { onText: (t) => (text += t) },
    );
    // A character split across two writes is decoded whole.
    const euro = Buffer.from('€');
    file.write(Buffer.concat([Buffer.from('first <script>\n'), euro.subarray(0, 1)]));
    const deadline = Date.now() + 10_000;
    while (!text.includes('first') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(text).toBe('first <script>\n');
    file.write(Buffer.concat([euro.subarray(1), Buffer.from('last\0\n')]));
    file.close();
    reader.stop();
    expect(text).toBe('first <script>\n€last\n');
    expect(reader.found).toBe(true);
    older.close();
  });
});
