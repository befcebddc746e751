/**
 * `tamper_guard:`, the worker's half: the test files (activities/test-files.ts) are snapshotted
 * before a guarded state's action and compared after it, in the same activity call, so nothing
 * of them goes into the run's history but the paths that changed. With policy `revert` the
 * snapshot keeps the files' bytes and puts back every file the action changed or deleted (a file
 * it added is left). What the change means for the state is the core's (fsm/tamper-guard.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ActionResult, RunActionInput } from '../fsm/types.js';
import type { TamperFinding, TamperPolicy, TamperReport } from '../fsm/check-reports.js';
import { fingerprint, guardedFiles, readEach } from './test-files.js';
import { listCheckoutFiles, type ListFiles } from './checkout-files.js';

interface Entry {
  print: string | null;
  bytes?: Buffer;
}
type TestSnapshot = Map<string, Entry>;

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The guarded files under `cwd` now (their bytes too when `keep`, for a revert). */
async function snapshotTests(cwd: string, keep: boolean, list: ListFiles): Promise<TestSnapshot> {
  const snapshot: TestSnapshot = new Map();
  await readEach(cwd, await guardedFiles(cwd, list), (path, bytes) => {
    const print = fingerprint(path, bytes);
    if (print !== null) snapshot.set(path, keep && bytes !== undefined ? { print, bytes } : { print });
  });
  return snapshot;
}

/** What changed since `before`; with `revert`, the changed and deleted files are put back. */
async function compareTests(
  cwd: string,
  before: TestSnapshot,
  policy: TamperPolicy,
  list: ListFiles,
): Promise<TamperReport> {
  const after = await snapshotTests(cwd, false, list);
  const findings: TamperFinding[] = [];
  for (const path of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const was = before.get(path)?.print ?? null;
    const now = after.get(path)?.print ?? null;
    if (was === now) continue;
    findings.push({ path, kind: was === null ? 'added' : now === null ? 'deleted' : 'modified' });
  }
  if (policy !== 'revert') return { findings };
  const reverted: string[] = [];
  for (const finding of findings) {
    const bytes = before.get(finding.path)?.bytes;
    if (finding.kind === 'added' || bytes === undefined) continue;
    try {
      await mkdir(dirname(join(cwd, finding.path)), { recursive: true });
      await writeFile(join(cwd, finding.path), bytes);
      reverted.push(finding.path);
    } catch {
      // Not reverted: the core fails the state naming it.
    }
  }
  return { findings, reverted };
}

/**
 * `run` with the state's test files compared around it when its input asks (RunActionInput.tamper_guard);
 * `list` lists a checkout's files (the action spawner's when the worker has one up). `listedAhead`:
 * the checkout's files as listed since the worker's last action ended (activities/listing-ahead.ts),
 * taken for the "before" listing unless git could not make it.
 */
export function guardedAction(
  run: (input: RunActionInput) => Promise<ActionResult>,
  list: ListFiles = listCheckoutFiles,
): (input: RunActionInput, listedAhead?: Promise<string[] | undefined>) => Promise<ActionResult> {
  return async (input, listedAhead) => {
    const policy = input.tamper_guard;
    if (policy === undefined) return run(input);
    const listBefore: ListFiles =
      listedAhead === undefined ? list : async (cwd) => (await listedAhead) ?? (await list(cwd));
    let before: TestSnapshot;
    try {
      before = await snapshotTests(input.cwd, policy === 'revert', listBefore);
    } catch (err) {
      return { ...(await run(input)), tamper: { findings: [], error: `before the action: ${messageOf(err)}` } };
    }
    const result = await run(input);
    try {
      return { ...result, tamper: await compareTests(input.cwd, before, policy, list) };
    } catch (err) {
      return { ...result, tamper: { findings: [], error: `after the action: ${messageOf(err)}` } };
    }
  };
}
