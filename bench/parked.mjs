// `npm run bench` part `parked`: N open runs parked on a timer in the checkout's worker.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  benchWorker,
  connectClient,
  dist,
  endpoint,
  procStatus,
  project,
  round,
  sleep,
  spawnProfiledWorker,
  startRuns,
  wall,
} from './context.mjs';

export async function parkedLoops(count) {
  const { ensureCheckoutWorker } = await dist('runs/workers/checkout-worker.js');
  const { loadLoop } = await dist('loader/load.js');
  // One quick action, then a new pass: a 900 s backoff (a durable timer) keeps the run open.
  writeFileSync(
    join(project, '.loops', 'park.yaml'),
    'name: park\ndescription: one action, then a long backoff\ninitial: a\nbackoff: 900\ndefault_timeout: 10\nstates:\n  a:\n    action: "true"\n    on_yes: a\n    on_no: done\n  done:\n    terminal: true\n',
  );
  const loaded = loadLoop('park', project, { requireParameters: true });
  spawnProfiledWorker();
  const worker = await ensureCheckoutWorker(project, endpoint.address);
  benchWorker.pid = worker.pid;
  const { client, connection } = await connectClient(endpoint);
  const before = procStatus(worker.pid);
  const ids = [];
  const batch = `park-${Date.now()}`;
  const t0 = wall();
  ids.push(...(await startRuns(client, loaded, count, batch)));
  // Parked once each has had its first workflow task (it set its LoopState).
  const deadline = Date.now() + 600_000;
  while (
    (await client.workflow.count(`LoopName = 'park' AND ExecutionStatus = 'Running' AND LoopState = 'a'`)).count <
      count &&
    Date.now() < deadline
  )
    await sleep(1000);
  const parkedAfterS = (wall() - t0) / 1000;
  await sleep(5000);
  const after = procStatus(worker.pid);
  for (let i = 0; i < ids.length; i += 50)
    await Promise.all(
      ids.slice(i, i + 50).map((id) =>
        client.workflow
          .getHandle(id)
          .terminate('bench done')
          .catch(() => undefined),
      ),
    );
  await connection.close();
  return {
    loops: count,
    parked_after_s: round(parkedAfterS, 1),
    worker_rss_before_mb: round((before?.rss_kb ?? 0) / 1024),
    worker_rss_parked_mb: round((after?.rss_kb ?? 0) / 1024),
    worker_peak_rss_mb: round((after?.hwm_kb ?? 0) / 1024),
  };
}
