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
    .map((name) => ({
      dir: join(HISTORIES_DIR, name),
      manifest: JSON.parse(readFileSync(join(HISTORIES_DIR, name, 'manifest.json'), 'utf8')) as HistoryManifest,
    }));
}

/** The input of every committed execution (its WorkflowExecutionStarted event's first payload, JSON). */
export function committedInputs(): Array<{ where: string; input: Record<string, unknown> }> {
  const out: Array<{ where: string; input: Record<string, unknown> }> = [];
  for (const { dir, manifest } of committedSets()) {
    for (const scenario of manifest.scenarios) {
      for (const execution of scenario.executions) {
        const history = JSON.parse(readFileSync(join(dir, execution.file), 'utf8')) as {
          events: Array<{
            workflowExecutionStartedEventAttributes?: { input?: { payloads?: Array<{ data?: string }> } };
          }>;
        };
        const data = history.events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
        if (data)
          out.push({
            where: `${manifest.version}/${execution.file}`,
            input: JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as Record<string, unknown>,
          });
      }
    }
  }
  return out;
}
