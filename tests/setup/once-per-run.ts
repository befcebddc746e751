/**
 * A file a global setup makes once per test run for every project that lists the setup. Global
 * setups run one project after another in the main process, each loading its module afresh: the
 * first makes the file in a temporary directory and keeps its path on globalThis, the others
 * reuse it, and each hands it to its test files through the environment variable `envVar`
 * (forks inherit it). The first one's teardown removes the directory, made in `parent` (default:
 * the system's temporary directory).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function oncePerRun(
  name: string,
  envVar: string,
  make: (dir: string) => Promise<string>,
  parent: string = tmpdir(),
): Promise<() => void> {
  const key = Symbol.for(`ll-loop.test-${name}`);
  const shared = globalThis as { [key: symbol]: string | undefined };
  const made = shared[key];
  if (made !== undefined) {
    process.env[envVar] = made;
    return () => {};
  }
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, `ll-loop-${name}-`));
  const path = await make(dir);
  process.env[envVar] = path;
  shared[key] = path;
  return () => {
    delete shared[key];
    rmSync(dir, { recursive: true, force: true });
  };
}
