// `npm run bench` part `mcp`: an MCP client's `start_run` → the run's first action, the checkout's
// worker up (the goal: 0.3 s). `ll-loop mcp` runs over stdio as an agent starts it, driven
// by the MCP SDK's own client; each run's only action writes its own timestamp, and the figure is
// that timestamp less the moment the client sent the call (and, beside it, when the call returned).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, FIRST_RUNS, benchWorker, median, project, round, sleep, wall } from './context.mjs';

const LOOP = 'mcp-first';

/** The action's timestamp (ms), once its file is written whole. */
async function actionTime(stamp) {
  for (;;) {
    if (existsSync(stamp)) {
      const text = readFileSync(stamp, 'utf8');
      if (text.endsWith('\n')) return Number(BigInt(text.trim()) / 1000n) / 1000; // ns → ms
    }
    await sleep(2);
  }
}

async function timedStart(client) {
  const stamp = join(project, `${LOOP}.ns`);
  rmSync(stamp, { force: true });
  const sentAt = wall();
  const result = await client.callTool({ name: 'start_run', arguments: { loop: LOOP } });
  const returnedAt = wall();
  if (result.isError) throw new Error(`start_run: ${result.content.map((c) => c.text).join('\n')}`);
  const actionAt = await actionTime(stamp);
  return { ms: actionAt - sentAt, returned_ms: returnedAt - sentAt };
}

export async function mcpStart() {
  // A quick action (a local activity, in the run's first workflow task), as first-action's `first`.
  writeFileSync(
    join(project, '.loops', `${LOOP}.yaml`),
    `name: ${LOOP}\ninitial: go\ndefault_timeout: 10\nstates:\n  go:\n    action: "date +%s%N > ${LOOP}.ns"\n    next: done\n  done:\n    terminal: true\n`,
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    cwd: project,
    env: Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined)),
    stderr: 'inherit',
  });
  const client = new Client({ name: 'll-loop-bench', version: '1' });
  const connectStarted = wall();
  await client.connect(transport);
  const connectMs = wall() - connectStarted;
  try {
    // Warm-up: brings the checkout's worker up (when no part before did) and runs one loop on it.
    const warm = await timedStart(client);
    if (!benchWorker.pid) {
      const record = JSON.parse(readFileSync(join(project, '.loops', '.worker', 'worker.json'), 'utf8'));
      benchWorker.pid = record.pid;
    }
    const runs = [];
    for (let i = 0; i < FIRST_RUNS; i += 1) runs.push(await timedStart(client));
    return {
      connect_ms: round(connectMs),
      warmup_ms: round(warm.ms),
      runs_ms: runs.map((r) => round(r.ms)),
      median_ms: round(median(runs.map((r) => r.ms))),
      max_ms: round(Math.max(...runs.map((r) => r.ms))),
      returned_median_ms: round(median(runs.map((r) => r.returned_ms))),
      goal_ms: 300,
    };
  } finally {
    await client.close();
  }
}
