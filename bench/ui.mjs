// `npm run bench -- --only ui`: `ll-loop ui` in Debian's Chromium (playwright-core), on the bench's
// dedicated server and project, the server of dist/ui/server in this process over the real run source.
//   - lit: from a transition (its state_enter's time, the workflow's clock on this machine) to the
//     page's lit state changing (seen by a MutationObserver in the page): median and p95 over a loop
//     of BENCH_UI_TRANSITIONS transitions (default 20) spaced by a 0.4 s action; goal median ≤ 300 ms.
//   - first load: from navigating to the runs page to all of BENCH_UI_RUNS runs (default 1,000;
//     --quick 200) listed in its table (its first screen of rows drawn: the list is windowed), once they all ended, three times (the first page of a server
//     that has not listed them yet, then two more); goal ≤ 1 s.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  benchWorker,
  connectClient,
  dist,
  endpoint,
  median,
  note,
  project,
  QUICK,
  round,
  sleep,
  spawnProfiledWorker,
  startRuns,
} from './context.mjs';

const CHROMIUM = process.env.LL_CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];

/** The state_enter events of a run, from its events file: [{ state, ms }]. */
function stateEnters(id) {
  const lines = readFileSync(join(project, '.loops', '.running', `${id}.events.jsonl`), 'utf8').split('\n');
  return lines
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.event === 'state_enter' && !e.subloop)
    .map((e) => ({ state: e.state, ms: Date.parse(e.ts) }));
}

export async function uiBench() {
  const transitions = Number(process.env.BENCH_UI_TRANSITIONS ?? 20);
  const runs = Number(process.env.BENCH_UI_RUNS ?? (QUICK ? 200 : 1000));
  const { ensureCheckoutWorker } = await dist('runs/workers/checkout-worker.js');
  const { loadLoop } = await dist('loader/load.js');
  const { openSession } = await dist('temporal/session.js');
  const { startUiServer } = await dist('ui/server/ui-server.js');
  const { temporalRunSource } = await dist('ui/server/temporal-source.js');
  const { chromium } = await import('playwright-core');
  writeFileSync(
    join(project, '.loops', 'uiflip.yaml'),
    `name: uiflip\ndescription: flips between two states\ninitial: a\nmax_iterations: ${transitions + 5}\nstates:\n  a:\n    action: "sleep 0.4"\n    next: b\n  b:\n    action: "sleep 0.4; [ -f stop-flip ]"\n    on_yes: done\n    on_no: a\n  done:\n    terminal: true\n`,
  );
  writeFileSync(
    join(project, '.loops', 'uinoop.yaml'),
    'name: uinoop\ndescription: ends at once\ninitial: done\nstates:\n  done:\n    terminal: true\n',
  );
  spawnProfiledWorker();
  const worker = await ensureCheckoutWorker(project, endpoint.address);
  benchWorker.pid = worker.pid;
  const { client, connection } = await connectClient(endpoint);
  const session = await openSession(project);
  const server = await startUiServer({ source: temporalRunSource(session, project) });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  try {
    // 1. Transition → lit.
    const [id] = await startRuns(client, loadLoop('uiflip', project, {}), 1, `uiflip-${Date.now()}`);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${server.url}#/run/${encodeURIComponent(id)}`);
    await page.locator('svg.graph').waitFor({ timeout: 30_000 });
    await page.evaluate(() => {
      window.__lit = [];
      new MutationObserver((records) => {
        for (const r of records) {
          const el = r.target;
          if (el.classList?.contains('lit') && r.oldValue && !r.oldValue.split(' ').includes('lit'))
            window.__lit.push({ state: el.getAttribute('data-state'), ms: Date.now() });
        }
      }).observe(document.querySelector('svg.graph'), {
        subtree: true,
        attributes: true,
        attributeFilter: ['class'],
        attributeOldValue: true,
      });
    });
    const sinceObserved = Date.now();
    const deadline = Date.now() + 120_000;
    while ((await page.evaluate(() => window.__lit.length)) < transitions && Date.now() < deadline) await sleep(200);
    writeFileSync(join(project, 'stop-flip'), '');
    const lit = await page.evaluate(() => window.__lit);
    const enters = stateEnters(id);
    // Each lit change is matched with the latest state_enter of that state before it (later than
    // the one matched before); a change whose transition came before the observer is not counted.
    const latencies = [];
    let after = sinceObserved;
    for (const l of lit) {
      const enter = enters.filter((e) => e.state === l.state && e.ms <= l.ms && e.ms >= after).at(-1);
      if (!enter) continue;
      latencies.push(l.ms - enter.ms);
      after = enter.ms + 1;
    }
    latencies.sort((a, b) => a - b);
    if (latencies.length === 0)
      note(
        `ui bench: ${lit.length} lit changes seen, ${enters.length} state_enter events of ${id}, observed from ${sinceObserved}: ${JSON.stringify({ lit: lit.slice(0, 4), enters: stateEnters(id).slice(0, 4) })}`,
      );
    await page.close();

    // 2. First load with many runs.
    await startRuns(client, loadLoop('uinoop', project, {}), runs, `uinoop-${Date.now()}`);
    const listed = Date.now() + 300_000;
    // Measured once they all ended: the page's load, not the machine finishing 1,000 runs.
    const ended = async () =>
      (await client.workflow.count(`LoopName = 'uinoop' AND ExecutionStatus != 'Running'`)).count >= runs;
    while (!(await ended()) && Date.now() < listed) await sleep(500);
    const loads = [];
    const breakdowns = [];
    const readsBefore = [...server.feed.readMs];
    for (let i = 0; i < 3; i += 1) {
      const p = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      const t0 = Date.now();
      await p.goto(server.url);
      // The list is windowed (ui/page/runs-view.ts): loaded = all runs listed and its first screen drawn.
      await p.waitForFunction(
        (n) => Number(document.getElementById('runs')?.dataset.shown ?? 0) >= n && document.querySelector('tr.run'),
        runs,
        { timeout: 60_000 },
      );
      loads.push(Date.now() - t0);
      // Where the time went, in the page's clock from navigation: the page's HTML, its script, the
      // first list of runs received (and how many it had), the first with all of them.
      breakdowns.push(
        await p.evaluate((n) => {
          const nav = performance.getEntriesByType('navigation')[0];
          const script = performance.getEntriesByType('resource').find((r) => r.name.includes('/app.js'));
          const lists = performance.getEntriesByType('mark').filter((m) => m.name.startsWith('ll-runs:'));
          const full = lists.find((m) => Number(m.name.slice(8)) >= n);
          const r = (x) => (x === undefined ? null : Math.round(x));
          return {
            html_ms: r(nav?.responseEnd),
            script_ms: r(script?.responseEnd),
            first_list_ms: r(lists[0]?.startTime),
            first_list_runs: lists[0] ? Number(lists[0].name.slice(8)) : 0,
            full_list_ms: r(full?.startTime),
          };
        }, runs),
      );
      await p.close();
    }
    return {
      transitions_observed: latencies.length,
      lit_median_ms: round(median(latencies)),
      lit_p95_ms: round(latencies[Math.floor(latencies.length * 0.95)] ?? Number.NaN),
      lit_goal_ms: 300,
      runs_listed: runs,
      first_load_ms: loads,
      first_load_median_ms: round(median(loads)),
      first_load_goal_ms: 1000,
      first_load_breakdown: breakdowns,
      server_list_reads_ms: { before_pages: readsBefore, latest: [...server.feed.readMs] },
    };
  } finally {
    await browser.close();
    await server.close();
    await session.close();
    await connection.close();
  }
}
