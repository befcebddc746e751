/**
 * The MCP tools that change runs: `start_run` (a background start, as `run --background`:
 * runs/start/start-background.ts), and over the runs service `answer`, `pause`, `unpause`,
 * `steer`, `rerun`, `stop_run`. None is served with `--read-only`.
 */
import { z } from 'zod';
import type { HumanReply } from '../../fsm/human.js';
import { UsageError } from '../../errors/errors.js';
import { projectScope } from '../../runs/find/project-scope.js';
import type { RunsService } from '../../runs/service/interface.js';
import { startInBackground } from '../../runs/start/start-background.js';
import { reviveRunCheckout } from '../../runs/workers/revive-run-checkout.js';
import { contextPairs, contextStrings, contextValues } from './loop-tools.js';
import { registerTool, report, type ToolHost } from './tool-kit.js';

const runInput = z.string().describe('a run id, or a loop name (its open run)');
const contextInput = contextValues;
const controlOutput = { id: z.string(), by: z.string(), answer: report({}) };

/** The reply an `answer` call gives, or a usage error naming what is missing. */
function replyOf(reply: string, text: string | undefined, json: unknown): HumanReply {
  if (reply === 'yes' || reply === 'no') return { kind: reply };
  if (reply === 'json') {
    if (json === undefined) throw new UsageError('answer with reply "json" needs `json`', 'add json: {…}');
    return { kind: 'json', value: json };
  }
  if (text === undefined) throw new UsageError(`answer with reply "${reply}" needs \`text\``, 'add text: "…"');
  if (reply === 'choice') return { kind: 'choice', option: text };
  return reply === 'edit' ? { kind: 'edit', text } : { kind: 'text', text };
}

export function registerControlTools(host: ToolHost, cwd: string, runs: RunsService, env: NodeJS.ProcessEnv): void {
  registerTool(host, {
    name: 'start_run',
    title: 'Start a run',
    description:
      'Start a loop in the background (`ll-loop run <loop> --background`) and return its run id at once; follow it with run_status, run_logs or the resource ll-loop://runs/<id>.',
    input: {
      loop: z.string().describe('a loop name or a path to a loop file'),
      context: contextInput.describe('context values (parameters), as `--context KEY=VALUE` gives them'),
      max_iterations: z.number().int().min(1).optional(),
    },
    output: {
      run_id: z.string(),
      task_queue: z.string(),
      worker_pid: z.number().nullable(),
      resource: z.string().describe('the run as an MCP resource'),
      ui_url: z.string().optional(),
    },
    readOnly: false,
    run: async ({ loop, context, max_iterations }) => {
      const started = await startInBackground(
        {
          cwd,
          target: loop,
          context: contextPairs(context),
          noLlm: false,
          env: { ...env },
          ...(max_iterations === undefined ? {} : { maxIterations: max_iterations }),
        },
        runs,
      );
      return {
        run_id: started.instanceId,
        task_queue: started.taskQueue,
        worker_pid: started.worker?.pid ?? null,
        resource: `ll-loop://runs/${started.instanceId}`,
        ...(started.uiUrl ? { ui_url: started.uiUrl } : {}),
      };
    },
  });

  registerTool(host, {
    name: 'answer',
    title: 'Answer a run',
    description:
      'Answer the question of a run waiting for a person (see inbox): yes, no, a choice, a text, an edit or JSON.',
    input: {
      run: runInput,
      reply: z.enum(['yes', 'no', 'choice', 'text', 'edit', 'json']),
      text: z.string().optional().describe('the option (choice), the text (text) or the edited text (edit)'),
      json: z.unknown().optional().describe('the value, for reply "json"'),
    },
    output: { run: z.string(), by: z.string(), state: z.string(), verdict: z.string() },
    readOnly: false,
    run: ({ run, reply, text, json }) =>
      runs.answer({
        cwd,
        target: run,
        reply: replyOf(reply, text, json),
        project: projectScope(cwd),
        // A run of another project of this host: its checkout's worker is brought back if it is gone.
        onFound: (found) => reviveRunCheckout(found, cwd),
      }),
  });

  registerTool(host, {
    name: 'pause',
    title: 'Pause a run',
    description: 'Pause a run: it holds before its next state until unpaused (its action under way ends first).',
    input: { run: runInput },
    output: controlOutput,
    readOnly: false,
    run: ({ run }) => runs.pause({ cwd, target: run }),
  });

  registerTool(host, {
    name: 'unpause',
    title: 'Unpause a run',
    description: 'Let a paused run go on.',
    input: { run: runInput },
    output: controlOutput,
    readOnly: false,
    run: ({ run }) => runs.unpause({ cwd, target: run }),
  });

  registerTool(host, {
    name: 'steer',
    title: 'Steer a run',
    description: 'Send a run to another state next, optionally with context values and a note (`ll-loop steer`).',
    input: {
      run: runInput,
      to: z.string().describe('the state it goes to next'),
      note: z.string().optional(),
      context: contextInput.describe('context values it goes on with'),
    },
    output: controlOutput,
    readOnly: false,
    destructive: true,
    run: ({ run, to, note, context }) =>
      runs.steer(
        { cwd, target: run },
        {
          to,
          ...(note === undefined ? {} : { note }),
          ...(context === undefined ? {} : { context: contextStrings(context)! }),
        },
      ),
  });

  registerTool(host, {
    name: 'rerun',
    title: 'Rerun from a state',
    description: 'Start a new run from a state of an earlier one (`STATE` or `STATE#N`), in the background.',
    input: {
      run: runInput,
      from: z.string().describe('`STATE`, or `STATE#N` for its Nth visit'),
      context: contextInput.describe('context values changed for the new run'),
    },
    output: {
      id: z.string().describe('the new run'),
      runId: z.string().describe('the run it was forked from'),
      forkedFrom: z.string().describe('`<run>@<event>`'),
      state: z.string(),
      visit: z.number(),
    },
    readOnly: false,
    run: ({ run, from, context }) => runs.rerun({ cwd, target: run, from, context: contextPairs(context) }),
  });

  registerTool(host, {
    name: 'stop_run',
    title: 'Stop a run',
    description:
      'Stop a run: cancel it (its action killed, its outcome recorded), or terminate it in Temporal with `force`.',
    input: {
      run: runInput,
      force: z.boolean().optional().describe('terminate at once (no worker needed, no outcome recorded)'),
      wait_s: z.number().min(0).optional().describe('seconds to wait for the run to close (default 30)'),
    },
    output: { id: z.string(), outcome: z.string(), status: z.string() },
    readOnly: false,
    destructive: true,
    run: ({ run, force, wait_s }) =>
      runs.stop({ cwd, target: run, force: force === true, ...(wait_s === undefined ? {} : { waitS: wait_s }) }),
  });
}
