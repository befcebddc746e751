/**
 * The spawn note (host/worker-spawn-note.ts): a command that spawned the checkout's worker says so
 * until the worker claims the checkout, so that a second command does not spawn another. It counts
 * only while its pid lives and while it is fresh, and only the worker it names clears it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureRuntimeDir } from '../../loader/runtime-dir.js';
import { workerDir } from '../../host/checkout.js';
import {
  clearSpawnNote,
  liveSpawnNote,
  SPAWN_NOTE_TTL_MS,
  writeSpawnNote,
  type StartingWorker,
} from '../../host/worker-spawn-note.js';

const tmp = mkdtempSync(join(tmpdir(), 'll-spawn-note-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function checkout(name: string): string {
  const root = join(tmp, name);
  ensureRuntimeDir(workerDir(root));
  return root;
}

const worker = (pid: number): StartingWorker => ({
  pid,
  build_id: '1.2.3+abc',
  code_id: '1.2.3+abc/def',
  version: '1.2.3',
  built_at: '2026-11-26T00:00:00.000Z',
});

describe('the spawn note', () => {
  it('names the spawned worker, with its build, while it lives and is fresh', () => {
    const root = checkout('fresh');
    expect(liveSpawnNote(root)).toBeUndefined();
    writeSpawnNote(root, worker(process.pid), 1_000);
    expect(liveSpawnNote(root, 1_000 + SPAWN_NOTE_TTL_MS)).toEqual(worker(process.pid));
    expect(liveSpawnNote(root, 1_001 + SPAWN_NOTE_TTL_MS)).toBeUndefined();
  });

  it('does not count once the spawned process is gone', async () => {
    const root = checkout('dead');
    const child = spawn(process.execPath, ['-e', '0']);
    const pid = child.pid!;
    await once(child, 'exit');
    writeSpawnNote(root, worker(pid));
    expect(liveSpawnNote(root)).toBeUndefined();
  });

  it('is cleared only by the worker it names', () => {
    const root = checkout('clear');
    writeSpawnNote(root, worker(process.pid));
    clearSpawnNote(root, process.pid + 1);
    expect(liveSpawnNote(root)?.pid).toBe(process.pid);
    clearSpawnNote(root, process.pid);
    expect(liveSpawnNote(root)).toBeUndefined();
    clearSpawnNote(root, process.pid); // no note: nothing to do
  });
});
