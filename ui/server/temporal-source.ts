/**
 * The runs of a project as `ll-loop ui` shows them, through the same client code as the CLI:
 * listing (runs/find-runs.ts), and through the runs service on this server's session (`direct`:
 * runs/service/direct.ts) following a run's events (from its history, with each action's output
 * attached), stop (as `ll-loop stop`), resume (as `ll-loop resume --background`) and the page's
 * other acts (run-actions.ts): typed results, never a command's printed output. A running
 * action's output is read as it is written (runs/follow/live-actions.ts). Iteration, state and captured values come from the run's state file when the
 * run's worker is on this machine.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { TimedEvent } from '../../fsm/run/events.js';
import { listRuns, projectScope, type RunSummary } from '../../runs/find/find-runs.js';
import { liveActionWatcher } from '../../runs/follow/live-actions.js';
import { listedOutcome } from '../../reporters/outcome-words.js';
import { directRuns } from '../../runs/service/direct.js';
import type { Session } from '../../temporal/session.js';
import { statePath } from '../../host/run-files.js';
import type { RunStateFile } from '../../workflows/definitions.js';
import type { RunSource } from './run-source.js';
import { runGraph } from './run-graph.js';
import { tailStates } from './live-states.js';
import { watchWorkers } from './worker-watch.js';
import { actOnRun, errorText, runStatus } from './run-actions.js';
import { RunsIndex } from './runs-index.js';
import { runEndView, stopAnswer } from './run-end.js';
import type { ActionAnswer, RunRow } from './wire.js';

/** How many runs the list shows at most. */
const RUNS_LIMIT = 1000;

/**
 * How long one reading of the list may take. Unbounded, a reading while the server is down took
 * 20 s to fail (the client's retries), so the page said so only some 40 s after the outage began.
 */
const LIST_DEADLINE_MS = 8_000;

/** What the state file says, or undefined when it is not on this machine. */
function readState(cwd: string, id: string): Partial<RunStateFile> | undefined {
  const path = statePath(cwd, id);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Partial<RunStateFile>;
  } catch {
    return undefined;
  }
}

export function temporalRunSource(session: Session, root: string): RunSource {
  const project = projectScope(root);
  const runs = directRuns(session);
  // Closed runs do not change: their rows' state-file part is read once.
  const closedRows = new Map<string, Pick<RunRow, 'state' | 'iteration'>>();
  const fromStateFile = (run: RunSummary): Pick<RunRow, 'state' | 'iteration'> => {
    const cached = closedRows.get(run.id);
    if (cached) return cached;
    const state = readState(run.cwd ?? root, run.id);
    const part = {
      ...(state?.current_state ? { state: state.current_state } : run.loopState ? { state: run.loopState } : {}),
      ...(typeof state?.iteration === 'number' ? { iteration: state.iteration } : {}),
    };
    if (!run.open) closedRows.set(run.id, part);
    return part;
  };
  const runCwd = new Map<string, string>();
  const index = new RunsIndex(
    (where) =>
      session.connection.withDeadline(Date.now() + LIST_DEADLINE_MS, () =>
        listRuns(session.client, { project, limit: RUNS_LIMIT, ...(where === undefined ? {} : { where }) }),
      ),
    RUNS_LIMIT,
  );

  return {
    async listRuns() {
      const runs = await index.read();
      return runs.map((run): RunRow => {
        if (run.cwd) runCwd.set(run.id, run.cwd);
        return {
          id: run.id,
          loop: run.loop,
          status: run.status.toLowerCase(),
          open: run.open,
          outcome: listedOutcome(run),
          ...fromStateFile(run),
          started: run.startTime.toISOString(),
          ...(run.closeTime ? { closed: run.closeTime.toISOString() } : {}),
          ...(run.parent ? { parent: run.parent } : {}),
        };
      });
    },

    async followRun(id, sink) {
      const cwd = runCwd.get(id) ?? root;
      const live = liveActionWatcher(id, cwd, {
        onText: (a, text) => sink.output({ workflowId: a.workflowId, state: a.state, pass: a.pass, text }),
        onRestart: (a) =>
          sink.output({ workflowId: a.workflowId, state: a.state, pass: a.pass, text: '', restart: true }),
        onEnd: (a) => sink.outputEnd(a.workflowId),
      });
      const untail = tailStates(cwd, id, (seq, state) => sink.liveState(seq, state));
      const taskQueue = await session.client.workflow
        .getHandle(id)
        .describe()
        .then(
          (d) => (d.status.name === 'RUNNING' ? d.taskQueue : undefined),
          () => undefined,
        );
      const unwatch = taskQueue
        ? watchWorkers(session.client, taskQueue, (gone) =>
            sink.notice(
              gone
                ? `no worker serves this run now (task queue ${taskQueue}): it waits, safe, until one does; any ll-loop command in its project brings the checkout's worker back (ll-loop worker status)`
                : '',
            ),
          )
        : () => undefined;
      let capturedSeen = '';
      const noteCaptured = (): void => {
        const captured = readState(cwd, id)?.captured;
        const text = JSON.stringify(captured ?? {});
        if (captured && text !== capturedSeen) {
          capturedSeen = text;
          sink.captured(captured);
        }
      };
      try {
        const followed = await runs.follow({
          cwd,
          workflowId: id,
          actionOutput: true,
          onInput: (input) => sink.graph(runGraph(input.definition)),
          onEvent: (event: TimedEvent) => {
            // The event first: a page must know the action before its output arrives.
            sink.event(event);
            live.onEvent(event);
            if (!event.subloop) noteCaptured();
          },
          onDisconnect: (message) => sink.notice(`Temporal is unreachable (${message}); waiting for it`),
          // An empty notice clears the page's.
          onReconnect: () => sink.notice(''),
        });
        const result = followed.end && 'result' in followed.end ? followed.end.result : undefined;
        if (result?.captured && JSON.stringify(result.captured) !== capturedSeen) sink.captured(result.captured);
        for (const warning of followed.warnings) sink.notice(warning);
        sink.end(runEndView(id, followed.end));
      } finally {
        unwatch();
        untail();
        live.close();
      }
    },

    async stop(id): Promise<ActionAnswer> {
      try {
        return { ok: true, message: stopAnswer(await runs.stop({ cwd: root, target: id, force: false })) };
      } catch (err) {
        return { ok: false, message: errorText(err) };
      }
    },

    async resume(id): Promise<ActionAnswer> {
      try {
        const resumed = await runs.resume({ cwd: root, target: id, context: [] });
        return { ok: true, message: `resumed as ${resumed.id}`, run: resumed.id };
      } catch (err) {
        return { ok: false, message: errorText(err) };
      }
    },

    act: (id, request) => actOnRun(runs, root, id, request),
    status: (id) => runStatus(session, id),
  };
}
