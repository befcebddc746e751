// `npm run bench` part `human`: people in the loop.
// (a) `ll-loop answer` returning → the next action starting (the action's own timestamp), over
//     many answers to one run whose human state and action alternate;
// (b) `ll-loop inbox` with N runs waiting for a person (wall time of the command, spawn → exit).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  benchWorker,
  BIN,
  connectClient,
  dist,
  endpoint,
  median,
  project,
  round,
  sleep,
  spawnProfiledWorker,
  startRuns,
  wall,
} from './context.mjs';

export const ANSWER_GOAL_MS = 300;
export const INBOX_GOAL_MS = 500;

/** `node bin/ll-loop.js …` in the project: its exit code, stdout and wall time (spawn → exit). */
function cli(args) {
  return new Promise((resolve) => {
    const t0 = wall();
    const child = spawn(process.execPath, [BIN, ...args], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: wall() - t0, at: wall() }));
  });
}

async function until(what, check, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`bench human: timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** ms since the epoch of each action start, from the stamps file (one `date +%s%N` per line). */
const stamps = (file) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((ns) => Number(BigInt(ns) / 1000n) / 1000)
    : [];

async function answerLatency(client, answers) {
  const { statusQuery } = await dist('workflows/definitions.js');
  const file = join(project, 'human-stamps');
  writeFileSync(
    join(project, '.loops', 'human-bench.yaml'),
    [
      'name: human-bench',
      'description: a question, then a quick action, again and again',
      'initial: ask',
      'max_iterations: 1000',
      'default_timeout: 10',
      'states:',
      '  ask:',
      '    action_type: human',
      '    prompt: "go on?"',
      '    timeout: 3600',
      '    on_yes: act',
      '    on_no: done',
      '  act:',
      `    action: "date +%s%N >> ${file}"`,
      '    next: ask',
      '  done:',
      '    terminal: true',
      '',
    ].join('\n'),
  );
  const started = await cli(['run', 'human-bench', '--background', '--json']);
  if (started.code !== 0) throw new Error(`ll-loop run human-bench: ${started.stderr}`);
  const id = JSON.parse(started.stdout).instance_id;
  const handle = client.workflow.getHandle(id);
  const waits = async () => (await handle.query(statusQuery).catch(() => undefined))?.human?.state === 'ask';
  const latencies = [];
  const commands = [];
  for (let i = 0; i < answers; i += 1) {
    await until('the run to wait in ask', waits);
    const before = stamps(file).length;
    const answered = await cli(['answer', id, 'yes']);
    if (answered.code !== 0) throw new Error(`ll-loop answer: ${answered.stderr}`);
    await until('the action to start', () => stamps(file).length > before);
    latencies.push(stamps(file)[before] - answered.at);
    commands.push(answered.ms);
  }
  await until('the run to wait in ask', waits);
  await cli(['answer', id, 'no']);
  return {
    answers,
    median_ms: round(median(latencies)),
    max_ms: round(Math.max(...latencies)),
    runs_ms: latencies.map((x) => round(x)),
    answer_command_median_ms: round(median(commands)),
    goal_ms: ANSWER_GOAL_MS,
    within_goal: median(latencies) <= ANSWER_GOAL_MS,
  };
}

async function inboxTime(client, count, times) {
  const { loadLoop } = await dist('loader/load.js');
  writeFileSync(
    join(project, '.loops', 'inbox-bench.yaml'),
    'name: inbox-bench\ndescription: waits for a person\ninitial: ask\nstates:\n  ask:\n    action_type: human\n    prompt: "ship it?"\n    timeout: 3600\n    on_yes: done\n  done:\n    terminal: true\n',
  );
  const loaded = loadLoop('inbox-bench', project, { requireParameters: true });
  // The same command with no run waiting: what the CLI and one visibility query cost alone.
  const empty = [];
  for (let i = 0; i < times; i += 1) empty.push((await cli(['inbox', '--json'])).ms);
  const batch = `inbox-${Date.now()}`;
  const ids = await startRuns(client, loaded, count, batch);
  await until(
    `${count} runs waiting`,
    async () =>
      (
        await client.workflow.count(
          `LoopName = 'inbox-bench' AND ExecutionStatus = 'Running' AND LoopStatus = 'waiting'`,
        )
      ).count >= count,
    600_000,
  );
  const runs = [];
  let listed = 0;
  for (let i = 0; i < times; i += 1) {
    const r = await cli(['inbox', '--json']);
    if (r.code !== 0) throw new Error(`ll-loop inbox: ${r.stderr}`);
    listed = JSON.parse(r.stdout).filter((w) => w.loop === 'inbox-bench').length;
    runs.push(r.ms);
  }
  for (let i = 0; i < ids.length; i += 50)
    await Promise.all(
      ids.slice(i, i + 50).map((id) =>
        client.workflow
          .getHandle(id)
          .terminate('bench done')
          .catch(() => undefined),
      ),
    );
  return {
    waiting_runs: count,
    listed,
    median_ms: round(median(runs)),
    runs_ms: runs.map((x) => round(x)),
    empty_median_ms: round(median(empty)),
    goal_ms: INBOX_GOAL_MS,
    within_goal: median(runs) <= INBOX_GOAL_MS && listed === count,
  };
}

export async function humanBench({
  answers = Number(process.env.BENCH_HUMAN_ANSWERS ?? 12),
  waiting = 100,
  inboxRuns = 5,
} = {}) {
  const { ensureCheckoutWorker } = await dist('runs/workers/checkout-worker.js');
  // The checkout's worker, up before the first answer; the bench stops it by its pid at the end.
  spawnProfiledWorker();
  benchWorker.pid = (await ensureCheckoutWorker(project, endpoint.address)).pid;
  const { client, connection } = await connectClient(endpoint);
  try {
    const answer = answers > 0 ? await answerLatency(client, answers) : undefined;
    const inbox = await inboxTime(client, waiting, inboxRuns);
    return { answer, inbox };
  } finally {
    await connection.close();
  }
}
