/**
 * The committed histories: tests/fixtures/histories/<version>/manifest.json lists, for each
 * recorded scenario, the files holding its executions' histories (Temporal's JSON form).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const HISTORIES_DIR = join(import.meta.dirname, '..', 'fixtures', 'histories');

/** One execution of a workflow: a first run, a run continued as new, or a child workflow's run. */
export interface RecordedExecution {
  file: string;
  workflowId: string;
}

export interface HistoryManifest {
  /** The ll-loop version that recorded the set. */
  version: string;
  recorded_at: string;
  scenarios: Array<{ name: string; covers: string; outcome: string; executions: RecordedExecution[] }>;
}

/** Every committed set, oldest version first. */
export function committedSets(): Array<{ dir: string; manifest: HistoryManifest }> {
  if (!existsSync(HISTORIES_DIR)) return [];
  return readdirSync(HISTORIES_DIR)
    .filter((name) => existsSync(join(HISTORIES_DIR, name, 'manifest.json')))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    .map((name) => ({ dir: join(HISTORIES_DIR, name), manifest: JSON.parse(readFileSync(join(HISTORIES_DIR, name, 'manifest.json'), 'utf8')) as HistoryManifest }));
}
