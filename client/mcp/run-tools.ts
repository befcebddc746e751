/**
 * The MCP tools that read runs, over the runs service (runs/service/: the checkout's worker
 * when it serves, else Temporal directly): `run_status`, `run_logs`, `list_runs`, `inbox`.
 */
import { z } from 'zod';
import { projectScope } from '../../runs/find/project-scope.js';
import type { RunsService } from '../../runs/service/interface.js';
import { registerTool, report, type ToolHost } from './tool-kit.js';

const runInput = z.string().describe("a run id, or a loop name (that loop's open run, else its latest)");

/** What `run_status` returns: `ll-loop status --json`'s report. */
const statusShape = {
  id: z.string(),
  loop: z.string(),
  open: z.boolean(),
  status: z.string().describe("Temporal's execution status: running, completed, failed, cancelled, terminated, …"),
  started_at: z.string(),
  closed_at: z.string().optional(),
  worker: z.boolean().optional().describe('open runs: whether a worker answered'),
  live: report({ state: z.string(), phase: z.string(), iteration: z.number() })
    .optional()
    .describe("an open run's own answer: its state, phase, iteration, captured values"),
  result: report({}).optional().describe("a completed run's result: its final state and how it ended"),
  failure: report({ type: z.string(), message: z.string() }).optional(),
  url: z.string().optional().describe("the run's page in Temporal's Web UI"),
};

export function registerRunTools(host: ToolHost, cwd: string, runs: RunsService): void {
  registerTool(host, {
    name: 'run_status',
    title: 'Run status',
    description:
      "A run's status, as `ll-loop status --json` reports it: open or how it ended, its state now, its result.",
    input: { run: runInput },
    output: statusShape,
    readOnly: true,
    run: ({ run }) => runs.status(cwd, run),
  });

  registerTool(host, {
    name: 'run_logs',
    title: 'Run logs',
    description:
      "A run's ended actions (their output, exit codes, verdicts) and a person's part, as `ll-loop logs --json`.",
    input: {
      run: runInput,
      state: z.string().optional().describe('only actions of this state'),
      item: z.number().int().min(0).optional().describe("a parallel state's item: that item's run"),
    },
    output: {
      id: z.string(),
      loop: z.string(),
      status: z.string(),
      open: z.boolean(),
      actions: z.array(report({ state: z.string() })),
      people: z.array(report({})),
      warnings: z.array(z.string()),
    },
    readOnly: true,
    run: ({ run, state, item }) =>
      runs.logs({
        cwd,
        target: run,
        ...(state === undefined ? {} : { state }),
        ...(item === undefined ? {} : { item }),
      }),
  });

  registerTool(host, {
    name: 'list_runs',
    title: 'List runs',
    description:
      "The project's open runs (`ll-loop list --running`); with `loop`, that loop's past runs, newest first (`ll-loop history <loop>`).",
    input: {
      loop: z.string().optional().describe("list this loop's past runs instead of the open runs"),
      all_projects: z.boolean().optional().describe('open runs of every project on the server'),
    },
    output: { runs: z.array(report({ id: z.string(), status: z.string().optional(), loop: z.string().optional() })) },
    readOnly: true,
    run: async ({ loop, all_projects }) => {
      if (loop === undefined) return { runs: await runs.running(cwd, all_projects === true) };
      const history = await runs.history({ cwd, loop });
      return { runs: history.kind === 'runs' ? history.entries.map((e) => ({ ...e, loop: history.loop })) : [] };
    },
  });

  registerTool(host, {
    name: 'inbox',
    title: 'Inbox',
    description:
      'The runs waiting for a person: what each asks, its options, and since when (`ll-loop inbox`). Answer with `answer`.',
    input: { all_projects: z.boolean().optional().describe('runs of every project, not only this one') },
    output: {
      waiting: z.array(
        report({ run: z.string(), loop: z.string(), state: z.string(), ask: z.string(), since: z.string() }),
      ),
    },
    readOnly: true,
    run: async ({ all_projects }) => {
      const here = projectScope(cwd);
      return { waiting: await runs.inbox({ cwd, project: all_projects ? undefined : here, here }) };
    },
  });
}
