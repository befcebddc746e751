/**
 * `ll-loop init`'s plan and its writing: the checks found, the loops proposed for them (each a
 * `.loops/<name>.yaml` that says `from:` a built-in and sets its parameters to the project's
 * commands), whether each check's program is installed, and which files already exist. Writing
 * never overwrites a file: an existing one is kept, so running init again changes nothing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stringify } from 'yaml';
import { CliError } from '../../errors/errors.js';
import { loopsDir, projectLoopCopy } from '../../loader/load.js';
import { findChecker, type CheckerStatus } from './checker.js';
import type { DetectedCheck } from './checks.js';
import { detectProjectChecks } from './detect.js';
import { proposeLoops, type ProposedLoop, type UnmatchedCheck } from './proposals.js';

export interface PlannedLoop extends ProposedLoop {
  /** The file, relative to the project root (`.loops/test-until-pass.yaml`). */
  file: string;
  /** `new`: init writes it; `kept`: a file of that name is already there and stays as it is. */
  status: 'new' | 'kept';
  checker: CheckerStatus;
}

export interface InitPlan {
  root: string;
  checks: DetectedCheck[];
  loops: PlannedLoop[];
  unmatched: UnmatchedCheck[];
  /** The coding agent the proposed loops' fix states call (LL_HOST_CLI, default claude). */
  agent: CheckerStatus;
}

/** How to get the agent: set LL_HOST_CLI (to the one that is meant, when it is set to one not found). */
function agentFix(chosen: string | undefined): string {
  if (!chosen) return 'install Claude Code (the default agent) or set LL_HOST_CLI to your coding agent';
  return chosen.includes('/')
    ? `LL_HOST_CLI is "${chosen}", which is not an executable file: set LL_HOST_CLI to the agent's path (chmod +x it) or to a command on PATH`
    : `LL_HOST_CLI is "${chosen}", which is not on PATH: install it, or set LL_HOST_CLI to the agent's path or a command on PATH`;
}

/** What `init` would do in the project at `root`; reads files only. */
export function planInit(root: string, env: NodeJS.ProcessEnv = process.env): InitPlan {
  const checks = detectProjectChecks(root);
  const { loops, unmatched } = proposeLoops(checks);
  const chosen = env.LL_HOST_CLI?.trim();
  const agent = findChecker(chosen || 'claude', root, env);
  return {
    root,
    checks,
    unmatched,
    agent: agent.found ? agent : { ...agent, fix: agentFix(chosen) },
    loops: loops.map((loop) => {
      const existing = projectLoopCopy(root, loop.name);
      return {
        ...loop,
        file: relative(root, existing ?? join(loopsDir(root), `${loop.name}.yaml`)),
        status: existing ? 'kept' : 'new',
        checker: findChecker(loop.check.tool, root, env),
      };
    }),
  };
}

/** The file init writes for a proposed loop. */
export function loopText(loop: ProposedLoop): string {
  const header = [
    `# Written by ll-loop init: the built-in ${loop.from} with this project's commands`,
    `# (found in ${loop.check.source}). Edit it freely; ll-loop init never overwrites it.`,
    `# Run it: ll-loop run ${loop.name}`,
  ];
  const body = {
    name: loop.name,
    from: loop.from,
    parameters: Object.fromEntries(Object.entries(loop.parameters).map(([k, v]) => [k, { default: v }])),
  };
  return `${header.join('\n')}\n${stringify(body, { lineWidth: 0 })}`;
}

/**
 * Write the plan's new loops (created exclusively: a file that appeared meanwhile is kept, not
 * overwritten). Returns the files written and kept, relative to the root.
 */
export function writePlan(plan: InitPlan): { written: string[]; kept: string[] } {
  const written: string[] = [];
  const kept = plan.loops.filter((l) => l.status === 'kept').map((l) => l.file);
  const dir = loopsDir(plan.root);
  const cannotWrite = (file: string, err: unknown) =>
    new CliError(
      `cannot write ${file}: ${(err as Error).message}`,
      `check that ${relative(plan.root, dir) || dir}/ is a writable directory`,
    );
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw cannotWrite(relative(plan.root, dir), err);
  }
  for (const loop of plan.loops.filter((l) => l.status === 'new')) {
    try {
      writeFileSync(join(plan.root, loop.file), loopText(loop), { flag: 'wx' });
      written.push(loop.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') kept.push(loop.file);
      else throw cannotWrite(loop.file, err);
    }
  }
  return { written, kept };
}
