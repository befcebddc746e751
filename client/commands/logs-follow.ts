/**
 * `ll-loop logs --follow`: each action's output as it finishes (line by line on the worker's host,
 * follow-lines.ts), and a person's part between them, until the run ends; JSON Lines with --json.
 */
import { EXIT } from '../../errors/exit-codes.js';
import { safeText } from '../../reporters/safe-text.js';
import { actionLogCollector, type ActionLogRecord } from '../../runs/follow/action-logs.js';
import { followEvents } from '../../runs/follow/follow-events.js';
import { personLine, personRecord } from '../../runs/follow/person-events.js';
import { logsRunOf } from '../../runs/follow/logs-report.js';
import { runDefinition, runsSubloops, unknownState } from '../../runs/follow/logs-state.js';
import { withSession } from '../../temporal/session.js';
import { keepCheckoutWorker } from '../../runs/follow/keep-worker.js';
import { streamedLines } from './follow-lines.js';
import { headerOf, printRecord, type LogsOptions } from './logs-print.js';

export async function followLogs(opts: LogsOptions): Promise<number> {
  return withSession(opts.cwd, async (session) => {
    const run = await logsRunOf(session, {
      cwd: opts.cwd,
      target: opts.target,
      ...(opts.item === undefined ? {} : { item: opts.item }),
    });
    // A --state the loop does not have is refused before waiting; a loop that runs sub-loops
    // cannot list theirs up front, so there it is taken as given.
    if (opts.state !== undefined) {
      const definition = await runDefinition(session.client, run.id).catch(() => undefined);
      const refused =
        definition && !runsSubloops(definition)
          ? unknownState(run.id, opts.state, Object.keys(definition.states))
          : undefined;
      if (refused) throw refused;
    }
    let actions = 0;
    let people = 0;
    const live = opts.json ? undefined : streamedLines(run.id, run.cwd ?? opts.cwd, opts);
    const onAction = (r: ActionLogRecord): void => {
      if (opts.state !== undefined && r.state !== opts.state) return;
      actions += 1;
      if (opts.json) opts.out(`${JSON.stringify(r)}\n`);
      else if (live?.wasStreamed(r.workflow_id)) opts.out(`${headerOf(r)} (its output is above, as written)\n\n`);
      else printRecord(r, opts.out);
    };
    const collect = actionLogCollector(run.id, onAction);
    // Its checkout's worker is kept up while the run is followed (runs/follow/keep-worker.ts).
    const stopKeeping = keepCheckoutWorker(run.cwd ?? opts.cwd, opts.err);
    const followed = await followEvents(session.client, run.id, {
      follow: true,
      children: true,
      actionOutput: true,
      onEvent: (event) => {
        live?.onEvent(event);
        collect(event);
        const p = personRecord(event);
        if (!p || (opts.state !== undefined && p.state !== opts.state)) return;
        people += 1;
        opts.out(opts.json ? `${JSON.stringify(p)}\n` : personLine(p));
      },
    }).finally(() => {
      stopKeeping();
      live?.close();
    });
    for (const warning of followed.warnings) opts.err(`warning: ${warning}\n`);
    if (opts.json) return EXIT.ok;
    if (actions === 0 && people === 0) {
      opts.out(
        opts.state === undefined
          ? `no action of ${run.id} finished before the run ended; an action its end cut short keeps no output\n`
          : `no action of state ${safeText(opts.state)} in ${run.id} finished before the run ended; an action its end cut short keeps no output\n`,
      );
    }
    return EXIT.ok;
  });
}
