/**
 * `npm run record-histories`: run every scenario of ./scenarios.ts on a real dev server (started
 * by the vitest global setup) and save each execution's history — the first run, every run it
 * continued as new into, and every child workflow — under tests/fixtures/histories/<version>/.
 * Run it at each release and commit the set: `npm run test:replay` then replays every committed
 * set with the code of the day, so a change that alters what an earlier release's runs recorded
 * fails before it ships (see docs/architecture.md, "Changing workflow or core behaviour").
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { lockRequestFor } from '../../runs/scopes/scope-lock.js';
import { createLoopWorker } from '../../worker/create-worker.js';
import { LOOP_WORKFLOW_TYPE, type LoopWorkflowInput } from '../../workflows/definitions.js';
import { CURRENT_RUN_RULES } from '../../workflows/run-rules.js';
import { closeTemporal, definition, project, temporal, toolEnv } from '../integration/harness.js';
import { SCENARIOS, type Scenario } from './scenarios.js';
import { HISTORIES_DIR, type HistoryManifest, type RecordedExecution } from './histories.js';

afterAll(closeTemporal);

/** The release being recorded; LL_RECORD_VERSION records into another directory (a dry run of new scenarios). */
const VERSION =
  process.env['LL_RECORD_VERSION'] ??
  (JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string })
    .version;
const OUT = join(HISTORIES_DIR, VERSION);

/** Every execution of `workflowId` (its continue-as-new chain, first to last) and of its children. */
async function executions(workflowId: string, base: string): Promise<Array<RecordedExecution & { json: string }>> {
  const { client } = await temporal();
  const out: Array<RecordedExecution & { json: string }> = [];
  const seen = new Set<string>();
  const walk = async (id: string, file: string): Promise<void> => {
    let runId: string | undefined;
    const first = await client.workflow.getHandle(id).describe();
    runId = first.raw.workflowExecutionInfo?.firstRunId ?? undefined;
    for (let n = 0; runId; n += 1) {
      const history = await client.workflow.getHandle(id, runId).fetchHistory();
      out.push({ file: n === 0 ? `${file}.json` : `${file}.${n}.json`, workflowId: id, json: historyToJSON(history) });
      let next: string | undefined;
      const children: string[] = [];
      for (const e of history.events ?? []) {
        next = e.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId || next;
        const child = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
        if (child && !seen.has(child)) {
          seen.add(child);
          children.push(child);
        }
      }
      for (const [k, child] of children.entries()) await walk(child, `${file}.child-${k + 1}`);
      runId = next;
    }
  };
  await walk(workflowId, base);
  return out;
}

async function record(scenario: Scenario): Promise<HistoryManifest['scenarios'][number]> {
  const { client, native } = await temporal();
  const p = project(['mypy']);
  const env = { ...process.env, ...toolEnv(p), ...(scenario.prepare?.(p) ?? {}) } as NodeJS.ProcessEnv;
  const taskQueue = `record-${randomUUID()}`;
  const workflowId = `${scenario.name}-${randomUUID().slice(0, 8)}`;
  const { worker, events } = await createLoopWorker({ connection: native, taskQueue, activityDeps: { env } });
  const input: LoopWorkflowInput = {
    definition: definition(scenario.definition),
    options: {
      cwd: p.cwd,
      searchAttributes: true,
      localActivityMaxTimeoutS: scenario.localActivityMaxTimeoutS ?? 0,
      // As every run this release starts (workflows/run-rules.ts).
      ...CURRENT_RUN_RULES,
      ...(scenario.historyEventLimit === undefined ? {} : { historyEventLimit: scenario.historyEventLimit }),
      ...(scenario.failOnNonTerminal ? { failOnNonTerminal: true } : {}),
      // From 0.8.1 a pinned run records its own heartbeat timeout (LL_HEARTBEAT_TIMEOUT_S).
      ...(scenario.pinned ? { actionQueue: taskQueue, hostNoticeS: 60, heartbeatTimeoutS: 20 } : {}),
    },
    ...(scenario.dataContext ? { dataContext: scenario.dataContext } : {}),
    ...(scenario.scopeLock
      ? {
          lock: lockRequestFor(
            definition(scenario.definition),
            { root: p.cwd, lockDomain: `checkout:recorder:${p.cwd}`, queue: taskQueue },
            { wait: true },
          ),
        }
      : {}),
  };
  const outcome = await worker.runUntil(async () => {
    const handle = await client.workflow.start(LOOP_WORKFLOW_TYPE, {
      workflowId,
      taskQueue,
      args: [input],
      memo: { cwd: p.cwd },
    });
    await scenario.drive?.(handle, p);
    if (scenario.cancelAfterMs !== undefined) {
      await new Promise((r) => setTimeout(r, scenario.cancelAfterMs));
      await handle.cancel();
    }
    try {
      const result = (await handle.result()) as { terminated_by: string; final_state: string };
      return `completed: ${result.terminated_by} in ${result.final_state}`;
    } catch (err) {
      if (err instanceof WorkflowFailedError) return `failed: ${err.cause?.message ?? err.message}`;
      throw err;
    }
  });
  await events.close();
  const recorded = await executions(workflowId, scenario.name);
  for (const r of recorded) writeFileSync(join(OUT, r.file), `${r.json}\n`);
  rmSync(p.cwd, { recursive: true, force: true });
  return {
    name: scenario.name,
    covers: scenario.covers,
    outcome,
    executions: recorded.map(({ file, workflowId: id }) => ({ file, workflowId: id })),
  };
}

describe(`record histories of ll-loop ${VERSION}`, () => {
  it('runs every scenario on the dev server and saves its histories', { timeout: 600_000 }, async () => {
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });
    const manifest: HistoryManifest = { version: VERSION, recorded_at: new Date().toISOString(), scenarios: [] };
    for (const scenario of SCENARIOS) manifest.scenarios.push(await record(scenario));
    writeFileSync(join(OUT, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    expect(manifest.scenarios.map((s) => s.name)).toEqual(SCENARIOS.map((s) => s.name));
  });
});
