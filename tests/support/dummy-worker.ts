/**
 * A stand-in for a checkout's worker, for `worker status|stop|install` tests that need no
 * Temporal: a real, long-lived process whose command line is an ll-loop worker's
 * (`node -e … ll-loop worker`), which writes a WorkerRecord like the real worker and, on SIGTERM,
 * "drains" for `drainMs`, removes its record and exits 0 — or ignores SIGTERM (`stubborn`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { workerRecordPath, type WorkerRecord } from '../../host/checkout.js';
import { waitFor } from './processes.js';

const SCRIPT = `
const fs = require('fs');
const [, , , file, json, mode, drainMs] = process.argv;
const record = { ...JSON.parse(json), pid: process.pid };
// The handler before the record: a SIGTERM sent as soon as the record shows must find it.
process.on('SIGTERM', () => {
  if (mode === 'stubborn') return;
  setTimeout(() => { fs.rmSync(file, { force: true }); process.exit(0); }, Number(drainMs));
});
fs.mkdirSync(require('path').dirname(file), { recursive: true });
fs.writeFileSync(file, JSON.stringify(record));
setInterval(() => {}, 1000);
`;

export interface DummyWorker {
  child: ChildProcess;
  pid: number;
  /** SIGKILL it if it is still there (test cleanup). */
  kill(): void;
}

/** Start a dummy worker for the checkout at `root` and wait for its record. */
export async function startDummyWorker(
  root: string,
  record: Partial<WorkerRecord> & Pick<WorkerRecord, 'host'>,
  opts: { stubborn?: boolean; drainMs?: number } = {},
): Promise<DummyWorker> {
  const file = workerRecordPath(root);
  const full: Omit<WorkerRecord, 'pid'> = {
    version: '0.0.0-dummy',
    build_id: '0.0.0-dummy+000000000000',
    code_id: '0.0.0-dummy+000000000000/dummy',
    address: '127.0.0.1:0',
    namespace: 'default',
    root,
    queue: 'll-loop.checkout.dummy',
    identity: 'dummy',
    started_at: new Date().toISOString(),
    started_by: 'on-demand',
    ...record,
  };
  const child = spawn(
    process.execPath,
    [
      '-e',
      SCRIPT,
      'll-loop',
      'worker',
      file,
      JSON.stringify(full),
      opts.stubborn ? 'stubborn' : 'drain',
      String(opts.drainMs ?? 300),
    ],
    { stdio: 'ignore' },
  );
  const written = (): boolean => {
    try {
      return (JSON.parse(readFileSync(file, 'utf8')) as WorkerRecord).pid === child.pid;
    } catch {
      return false;
    }
  };
  await waitFor('the dummy worker record', written, 10_000, 20);
  return {
    child,
    pid: child.pid!,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
