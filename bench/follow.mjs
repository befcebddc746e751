// `npm run bench -- --only follow`: what following a run costs. A loop of N quick `true` states
// (default 300; 100 with --quick) run by `ll-loop run` in the foreground and with `--background`,
// alternately, on the checkout's worker: the run's own duration (its history: start → close),
// the command's wall time, the CPU of the command (the follower) and of the worker during each
// run — the worker's process and its action spawner's, where its bursts run (the actions' own
// processes are in neither). And a one-state loop from `ll-loop run` to the shell prompt
// (spawn → exit), worker up.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BIN,
  FIRST_RUNS,
  QUICK,
  SpawnerMeter,
  benchWorker,
  connectClient,
  cpuSeconds,
  endpoint,
  median,
  procStatus,
  project,
  round,
  sleep,
  spawnerOf,
  tsMs,
  wall,
} from './context.mjs';

const STATES = Number(process.env.BENCH_FOLLOW_STATES ?? (QUICK ? 100 : 300));

function writeLoops() {
  const states = Array.from(
    { length: STATES },
    (_, i) => `  s${i}:\n    action: "true"\n    next: ${i + 1 < STATES ? `s${i + 1}` : 'done'}\n`,
  );
  writeFileSync(
    join(project, '.loops', 'follow-many.yaml'),
    `name: follow-many\ndescription: following cost\ninitial: s0\ndefault_timeout: 10\nmax_iterations: ${STATES + 10}\nstates:\n${states.join('')}  done:\n    terminal: true\n`,
  );
  writeFileSync(
    join(project, '.loops', 'follow-one.yaml'),
    `name: follow-one\ndescription: to the prompt\ninitial: go\ndefault_timeout: 10\nstates:\n  go:\n    action: "true"\n    next: done\n  done:\n    terminal: true\n`,
  );
}

/** `ll-loop run <args>` with the CPU time it used (bash's `times`: its children's user + sys). */
function cli(args, extraEnv = {}) {
  return new Promise((resolve, reject) => {
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ${args.join(' ')} >"$OUT"; code=$?; times >&2; exit $code`;
    const out = join(project, `.follow-${process.pid}.out`);
    const child = spawn('bash', ['-c', command], {
      cwd: project,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...extraEnv, OUT: out },
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const t0 = wall();
    child.on('exit', (code) => {
      const ms = wall() - t0;
      if (code !== 0) return reject(new Error(`ll-loop ${args.join(' ')} exited ${code}: ${err.slice(-500)}`));
      const times = err
        .trim()
        .split('\n')
        .at(-1)
        .match(/(\d+)m([\d.]+)s (\d+)m([\d.]+)s/);
      const cpu = times ? Number(times[1]) * 60 + Number(times[2]) + Number(times[3]) * 60 + Number(times[4]) : NaN;
      resolve({ ms, cpu_s: cpu, stdout: readFileSync(out, 'utf8') });
    });
  });
}

function workerPid() {
  return JSON.parse(readFileSync(join(project, '.loops', '.worker', 'worker.json'), 'utf8')).pid;
}

/** The run's duration from its history: the start event to the close event. */
async function runDuration(client, workflowId) {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return tsMs(events.at(-1).eventTime) - tsMs(events[0].eventTime);
}

/**
 * The worker's CPU over `work`: its process's, and its action spawner's (bursts run there), sampled
 * as it goes since the spawner may come and go; both figures, and their sum.
 */
async function workerCpuOver(work) {
  const w0 = cpuSeconds(benchWorker.pid);
  const spawner = new SpawnerMeter(() => spawnerOf(benchWorker.pid));
  spawner.sample(true);
  const sampler = setInterval(() => spawner.sample(), 100);
  try {
    const result = await work();
    spawner.sample();
    const own = cpuSeconds(benchWorker.pid) - w0;
    return {
      result,
      cpu: { worker_cpu_s: own + spawner.cpu, worker_process_cpu_s: own, spawner_cpu_s: spawner.cpu },
    };
  } finally {
    clearInterval(sampler);
  }
}

async function waitClosed(client, workflowId) {
  // A `--background` start the checkout's worker queued is made a moment after the command
  // answered: until then the server has no such workflow (bounded: a start never made fails here).
  const madeBy = Date.now() + 60_000;
  for (;;) {
    const d = await client.workflow
      .getHandle(workflowId)
      .describe()
      .catch((err) => {
        if (err?.name !== 'WorkflowNotFoundError' || Date.now() > madeBy) throw err;
        return undefined;
      });
    if (d !== undefined && d.status.name !== 'RUNNING') return;
    await sleep(50);
  }
}

export async function followCost() {
  writeLoops();
  await cli(['run', 'follow-one', '--json']); // warm-up: the checkout's worker comes up
  benchWorker.pid = workerPid();
  const { client, connection } = await connectClient(endpoint);
  const out = { states: STATES, worker_pid: benchWorker.pid };
  try {
    const prompt = [];
    const promptCpu = [];
    for (let i = 0; i < FIRST_RUNS; i += 1) {
      const r = await cli(['run', 'follow-one']);
      prompt.push(r.ms);
      promptCpu.push(r.cpu_s);
    }
    out.one_state_to_prompt = {
      runs_ms: prompt.map((m) => round(m)),
      median_ms: round(median(prompt)),
      cpu_s_median: round(median(promptCpu), 2),
    };
    const fg = [];
    const bg = [];
    const foreground = async () => {
      // The human progress display (what a user follows), not --json.
      const { result: f, cpu } = await workerCpuOver(() => cli(['run', 'follow-many']));
      const fgId = /^run (\S+)/m.exec(f.stdout)?.[1];
      fg.push({
        run_ms: await runDuration(client, fgId),
        command_ms: f.ms,
        follower_cpu_s: f.cpu_s,
        ...cpu,
      });
    };
    const background = async () => {
      const t0 = wall();
      const { result: b, cpu } = await workerCpuOver(async () => {
        const started = await cli(['run', 'follow-many', '--background', '--json']);
        await waitClosed(client, JSON.parse(started.stdout.trim()).instance_id);
        return started;
      });
      const bgId = JSON.parse(b.stdout.trim()).instance_id;
      bg.push({
        run_ms: await runDuration(client, bgId),
        command_ms: wall() - t0,
        // Node and the start the worker queued, printed by the bin alone (no CLI loaded).
        command_cpu_s: b.cpu_s,
        ...cpu,
      });
    };
    // One run first, not counted: the worker's code for this loop (and the server's caches) warm.
    await cli(['run', 'follow-many', '--background', '--json']).then((b) =>
      waitClosed(client, JSON.parse(b.stdout.trim()).instance_id),
    );
    // Fifteen pairs, each in the other order than the one before: the same run's time varies by a
    // quarter from one run to the next (1.08–1.94 s through the CLI, where 300 transitions on a
    // worker in one process take 1.0 s ± 2 % once warm), so one pair's ratio lies anywhere in
    // 0.8–1.3, and the median of nine crossed 1.05 in one whole bench of four.
    out.pairs = QUICK ? 1 : 15;
    for (let pair = 0; pair < out.pairs; pair += 1) {
      if (pair % 2 === 0) {
        await foreground();
        await background();
      } else {
        await background();
        await foreground();
      }
    }
    const m = (rows, k) => round(median(rows.map((r) => r[k])), 2);
    out.foreground = { runs: fg.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, round(v, 2)]))) };
    out.background = { runs: bg.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, round(v, 2)]))) };
    out.foreground_over_background_run = round(m(fg, 'run_ms') / m(bg, 'run_ms'), 3);
    // Each pair's runs one right after the other (the issue's comparison): the median of their
    // ratios, which the machine's drift over the pairs does not move as it moves the medians.
    const pairRatios = fg.map((f, i) => f.run_ms / bg[i].run_ms);
    out.pair_ratios = pairRatios.map((r) => round(r, 3));
    out.foreground_over_background_run_pairs = round(median(pairRatios), 3);
    const mean = (rows, k) => rows.reduce((a, r) => a + r[k], 0) / rows.length;
    out.foreground_over_background_run_means = round(mean(fg, 'run_ms') / mean(bg, 'run_ms'), 3);
    out.follower_cpu_over_worker_cpu = round(m(fg, 'follower_cpu_s') / m(fg, 'worker_cpu_s'), 3);
    // Following itself: the foreground command's CPU beyond a one-state run's in the foreground,
    // which loads the CLI, has its run started the same way (the worker loads the loop, whatever
    // its size) and follows one state. (A `--background` start is printed by the bin alone: against
    // it, loading the CLI counted as following.)
    const following = m(fg, 'follower_cpu_s') - median(promptCpu);
    out.following_cpu_over_worker_cpu = round(following / m(fg, 'worker_cpu_s'), 3);
    // The same against the worker's process alone (its spawner's CPU left out).
    out.following_cpu_over_worker_process_cpu = round(following / m(fg, 'worker_process_cpu_s'), 3);
    // The worker's memory once the runs are over: 5 s after (V8 has not yet given back what the
    // busy spell grew), and idle, 30 s after (V8's memory reducer shrinks an isolate that stopped
    // allocating some 10-20 s later; docs/decisions.md, "Workflows on the worker's main thread").
    await sleep(5_000);
    const after = procStatus(benchWorker.pid);
    out.worker_rss_after_runs_mb = round(after.rss_kb / 1024);
    await sleep(25_000);
    const status = procStatus(benchWorker.pid);
    out.worker_idle_rss_mb = round(status.rss_kb / 1024);
    out.worker_peak_rss_mb = round(status.hwm_kb / 1024);
  } finally {
    await connection.close();
  }
  return out;
}
