/**
 * What the replay scenarios (tests/replay/scenarios/*.ts) share: a scenario's shape, the project
 * it runs in, fake tools, the loops its sub-loop and fan-out states call, and the waits of those a
 * person drives.
 */
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { FIXTURES } from '../../integration/harness.js';
import { waitFor } from '../../support/processes.js';
import { statusQuery } from '../../../workflows/definitions.js';

export interface ScenarioProject {
  cwd: string;
  toolsDir: string;
}

export interface Scenario {
  /** File-name-safe; the histories are saved as `<name>.json` (continued runs `<name>.<n>.json`). */
  name: string;
  /** What the history exercises, for the manifest. */
  covers: string;
  definition: Record<string, unknown>;
  /** Scripts fake tools / writes sub-loop files; returns extra worker environment. */
  prepare?: (p: ScenarioProject) => Record<string, string>;
  localActivityMaxTimeoutS?: number;
  historyEventLimit?: number;
  failOnNonTerminal?: boolean;
  /** Stop the run this long after it starts (the `cancel` shape). */
  cancelAfterMs?: number;
  /** The run asks the recording worker's queue's lock workflow for the whole checkout. */
  scopeLock?: boolean;
  /** Actions go to the recording worker's queue as a pinned pool run's do (`actionQueue`). */
  pinned?: boolean;
  /** Context keys given on the command line (`--context`): data, not code. */
  dataContext?: string[];
  /**
   * What a person does to the run once it started (answers, pause, steer), through the run's
   * Updates as the CLI sends them; the recorder then waits for the run's end.
   */
  drive?: (handle: WorkflowHandle, p: ScenarioProject) => Promise<void>;
}

export const CHILD = `
name: child
description: counts to two
initial: work
states:
  work:
    action: "echo child-\${state.iteration}"
    capture: child_out
    evaluate: { type: output_contains, pattern: "child-2" }
    on_yes: done
    on_no: work
  done: { terminal: true }
`;

/** A fake tool named `name` in the project's bin/ (fake-claude is `claude` already). */
export function tool(p: ScenarioProject, name: string): void {
  symlinkSync(join(FIXTURES, 'fake-tool'), join(p.cwd, 'bin', name));
}

export const JUDGE_SCHEMA = {
  type: 'object',
  properties: {
    verdict: { type: 'string', enum: ['done', 'again'] },
    confidence: { type: 'number' },
    reason: { type: 'string' },
  },
  required: ['verdict'],
};

/** How many lines an action appended to `file` (none before it wrote one). */
export const lineCount = (file: string): number =>
  existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').length : 0;

/** Waits until the run's status says `ready`. */
export async function until(
  handle: WorkflowHandle,
  what: string,
  ready: (s: Awaited<ReturnType<typeof status>>) => boolean,
) {
  await waitFor(what, async () => ready(await status(handle)), 60_000);
}
export const status = (handle: WorkflowHandle) => handle.query(statusQuery);
export const BY = { by: 'recorder@replay' };

export const PARALLEL_ITEM = `
name: item
description: one item of a fan-out
initial: run
parameters:
  name: { type: string, required: true }
states:
  run:
    action: "echo item-\${context.name}; case \${context.name} in bad*) exit 1;; esac"
    on_yes: done
    on_no: failed
  done: { terminal: true }
  failed: { terminal: true, failure: true }
`;

export const FLAKY =
  'n=$(cat attempts 2>/dev/null || echo 0); n=$((n + 1)); echo $n > attempts; echo "attempt $n"; [ "$n" -ge 3 ]';
