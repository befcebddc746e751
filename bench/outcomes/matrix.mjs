// The outcome benchmark's cases (bench/outcomes.mjs runs them all; tests/integration/outcomes.test.ts
// a part): one built-in loop, one fixture project (bench/outcomes/projects.mjs), one scripted
// agent (bench/outcomes/agent.mjs). A case sets the project up as a user would: its loops are the
// ones `ll-loop init --yes` writes (`from:` a built-in, with the project's commands), check-matrix
// written the same way; it runs the loop with the agent as the host CLI, then asks the oracle
// whether the project really is green. The caller gives the parts that differ between the bench
// (dist/, its own server) and the tests (the sources, the test server): `deps`.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { matrixCommands, writeProject } from './projects.mjs';

/** The agent, as LL_HOST_CLI names it. */
export const AGENT = fileURLToPath(new URL('./agent.mjs', import.meta.url));
export const AGENTS = ['fixer', 'reader', 'noop', 'cheater', 'flaky'];

/** The checks (projects.mjs `checks` keys) whose passing a loop's success claims. */
const CLAIMS = { 'test-until-pass': ['tests'], 'fix-types': ['types'], 'fix-lint': ['lint'] };
const claims = (project, loop) => CLAIMS[loop] ?? Object.keys(project.checks);

/**
 * Writes the case's project under `dir` (dir/project, beside it the agent's case file and log)
 * and its loops: init's (deps.planInit, deps.writePlan) and check-matrix (deps.loopText).
 */
function prepareCase(deps, project, agent, dir) {
  const cwd = join(dir, 'project');
  mkdirSync(cwd, { recursive: true });
  writeProject(project, cwd);
  const plan = deps.planInit(cwd, { ...process.env, LL_HOST_CLI: AGENT });
  deps.writePlan(plan);
  if (project.loops.includes('check-matrix')) {
    const parameters = matrixCommands(project);
    const check = { source: 'the checks init found' };
    const text = deps.loopText({ name: 'check-matrix', from: 'check-matrix', parameters, check });
    writeFileSync(join(cwd, '.loops', 'check-matrix.yaml'), text);
  }
  const log = join(dir, 'agent.log');
  const { defects, cheats } = project;
  writeFileSync(join(dir, 'bench-agent.json'), JSON.stringify({ agent, log, defects, cheats }));
  return { cwd, log };
}

/** True when `command` exits 0 in `cwd` (its output is not kept). */
function passes(command, cwd) {
  try {
    execFileSync('bash', ['-c', command], { cwd, stdio: 'ignore', timeout: 300_000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * The oracle: the loop's checks on a fresh copy of the project that carries over only the
 * source files a fix may change. A test the agent edited or a configuration it weakened stays
 * behind, so such a "pass" is no pass here.
 */
function oracle(project, loop, dir) {
  const fresh = join(dir, 'oracle');
  mkdirSync(fresh, { recursive: true });
  writeProject(project, fresh);
  for (const file of project.source)
    if (existsSync(join(dir, 'project', file))) copyFileSync(join(dir, 'project', file), join(fresh, file));
  return claims(project, loop).every((kind) => passes(project.checks[kind], fresh));
}

/**
 * The case's figures from its events: how the run ended, the agent's calls, the passes, and
 * ll-loop's own time: the run's duration less the time its actions' processes ran (the checks,
 * the agent and the terminal states' messages), from loop_complete and action_complete.
 */
function figures(events, log) {
  const end = events.find((e) => e.event === 'loop_complete');
  const actions = events.filter((e) => e.event === 'action_complete');
  const inProcesses = actions.reduce((sum, e) => sum + Number(e.duration_ms ?? 0), 0);
  const prompts = events.filter((e) => e.event === 'action_start' && e.action_type === 'prompt').length;
  const loggedCalls = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0;
  const passes = Math.max(1, Number(end?.iterations ?? 1));
  const own = end ? Number(end.duration_ms) - inProcesses : undefined;
  return {
    final_state: end?.final_state,
    succeeded: end !== undefined && end.failure !== true,
    error: end?.error,
    agent_calls: loggedCalls,
    prompt_actions: prompts,
    iterations: end?.iterations,
    steps: end?.steps,
    tamper_findings: events.filter((e) => e.event === 'tamper_guard').flatMap((e) => e.findings ?? []),
    duration_ms: end?.duration_ms,
    in_processes_ms: Math.round(inProcesses),
    own_ms: own === undefined ? undefined : Math.round(own),
    own_per_pass_ms: own === undefined ? undefined : Math.round((own / passes) * 10) / 10,
  };
}

/**
 * Runs one case in `dir`: deps.loadLoop(name, cwd) gives the loop as `ll-loop run NAME` loads it,
 * deps.runLoop(definition, cwd) runs it with LL_HOST_CLI set to AGENT and returns its events.
 * `green`: the loop ended in success and the oracle agrees; `false_green`: it ended in success
 * and the oracle does not.
 */
export async function runCase(deps, { project, loop, agent, dir }) {
  const { cwd, log } = prepareCase(deps, project, agent, dir);
  const def = deps.loadLoop(loop, cwd);
  const events = await deps.runLoop(def, cwd);
  const f = figures(events, log);
  const really = oracle(project, loop, dir);
  return {
    project: project.name,
    loop,
    agent,
    ...f,
    oracle_green: really,
    green: f.succeeded && really,
    false_green: f.succeeded && !really,
  };
}

/** Every case of the matrix: each project's loops, each agent. */
export function allCases(projects, agents = AGENTS) {
  return projects.flatMap((project) =>
    project.loops.flatMap((loop) => agents.map((agent) => ({ project, loop, agent }))),
  );
}
