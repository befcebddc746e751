// `npm run bench` part "cli": how long the commands that need no Temporal take to answer, as a
// user runs them (node + bin/ll-loop.js, wall time from spawn to exit). Goal: 0.3 s each
// (issue 12: --help, validate, show and list load no Temporal module).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const CLI_GOAL_MS = 300;

const LOOP = `name: cli-bench
description: a loop for the command-latency benchmark
initial: check
states:
  check:
    action: "true"
    on_yes: done
    on_no: fix
  fix:
    action: "echo fix"
    next: check
  done:
    terminal: true
`;

// Each run also reports the CPU time it used (user + system), which a busy machine inflates far
// less than the wall time: the two together tell a slow command from a slow machine.
const CPU_HOOK = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('\\nll-loop-bench-cpu '+Math.round((u.user+u.system)/1000)+'\\n')})`;

const median = (xs) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);

/** Median wall time (ms) of each command over `runs` runs in `project`, and whether it meets the goal. */
export function cliLatency({ bin, project, runs = 7, env = process.env }) {
  writeFileSync(join(project, '.loops', 'cli-bench.yaml'), LOOP);
  const commands = {
    help: ['--help'],
    validate: ['validate', 'cli-bench'],
    show: ['show', 'cli-bench'],
    list: ['list'],
  };
  const out = {};
  for (const [name, args] of Object.entries(commands)) {
    const times = [];
    const cpu = [];
    for (let i = 0; i < runs; i += 1) {
      const t0 = performance.now();
      const r = spawnSync(process.execPath, ['--import', CPU_HOOK, bin, ...args], {
        cwd: project,
        env,
        encoding: 'utf8',
      });
      times.push(performance.now() - t0);
      if (r.status !== 0) throw new Error(`ll-loop ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
      cpu.push(Number(/ll-loop-bench-cpu (\d+)/.exec(r.stderr)?.[1] ?? NaN));
    }
    const wall = median(times);
    out[name] = {
      median_ms: wall,
      min_ms: Math.round(Math.min(...times)),
      max_ms: Math.round(Math.max(...times)),
      cpu_median_ms: median(cpu),
      within_goal: wall <= CLI_GOAL_MS,
    };
  }
  return { goal_ms: CLI_GOAL_MS, runs, commands: out };
}
