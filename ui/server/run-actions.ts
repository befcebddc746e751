/**
 * Acting on a run from the page, through the runs service the CLI uses (runs/service/):
 * `ll-loop pause`, `unpause` and `steer`, `answer` (which checks a JSON answer against the
 * state's schema first), `rerun --from STATE#N --background`; and the run's live status (its
 * status query) the page
 * shows a waiting question, a pause and a rate limit from. Every refusal comes back as the CLI's
 * own error text (what and fix), never as a crash.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { CliError } from '../../errors/errors.js';
import type { ControlRequest } from '../../runs/control/run-control.js';
import { controlReport } from '../../reporters/control-report.js';
import { projectScope } from '../../runs/find/find-runs.js';
import type { RunsService } from '../../runs/service/interface.js';
import { queryStatus } from '../../runs/find/run-target.js';
import type { Session } from '../../temporal/session.js';
import { parseContextArgs } from '../../loader/load.js';
import type { ActionAnswer, ActRequest, RunStatusView } from './wire.js';

/** How long the page's status question may take (a run whose worker is away does not answer). */
const STATUS_QUERY_MS = 5_000;

/**
 * What a CLI error says, both lines, for the page. A run refused its scopes is told what the page
 * can do (its fix names `--queue`, which the page has no way to pass).
 */
export function errorText(err: unknown): string {
  if ((err as Error | undefined)?.name === 'ScopeBusyError') {
    // By name: runs/scopes is reached through the runs service (eslint/layers.js).
    const holder = (err as { details?: { blockers?: Array<{ run?: string }> } }).details?.blockers?.[0]?.run;
    return `${(err as Error).message} (try again once ${holder ?? 'the run that holds its scope'} has ended${holder ? `, or stop ${holder} from its page` : ''})`;
  }
  if (err instanceof CliError) return err.fix ? `${err.message} (${err.fix})` : err.message;
  return (err as Error).message;
}

/** The run took the update: the first line of what `ll-loop pause`/`unpause`/`steer` says of it. */
async function control(runs: RunsService, root: string, id: string, req: ControlRequest): Promise<ActionAnswer> {
  const target = { cwd: root, target: id };
  const taken = req.kind === 'steer' ? await runs.steer(target, req) : await runs[req.kind](target);
  return {
    ok: true,
    message: controlReport(taken.id, req, taken.answer, taken.by).split('\n')[0] ?? `${req.kind} sent`,
  };
}

/** Carries out one request of the page; never throws (a refusal is `ok: false` with its reason). */
export async function actOnRun(runs: RunsService, root: string, id: string, req: ActRequest): Promise<ActionAnswer> {
  try {
    switch (req.action) {
      case 'pause':
      case 'unpause':
        return await control(runs, root, id, { kind: req.action });
      case 'steer': {
        const context = parseContextArgs(req.context ?? []);
        return await control(runs, root, id, {
          kind: 'steer',
          to: req.to,
          ...(req.note ? { note: req.note } : {}),
          ...(Object.keys(context).length ? { context } : {}),
        });
      }
      case 'answer': {
        const report = await runs.answer({ cwd: root, target: id, reply: req.reply, project: projectScope(root) });
        return {
          ok: true,
          message: `answered ${report.run} in state ${report.state}: ${report.verdict} (by ${report.by})`,
        };
      }
      case 'rerun': {
        const started = await runs.rerun({ cwd: root, target: id, from: req.from, context: req.context ?? [] });
        return { ok: true, message: `rerunning ${id} from ${req.from} as ${started.id}`, run: started.id };
      }
    }
  } catch (err) {
    return { ok: false, message: errorText(err) };
  }
}

/** The open run's status (null when it does not answer in time, or is closed; `unknown` when the server has no such run). */
export async function runStatus(session: Session, id: string): Promise<RunStatusView | null | 'unknown'> {
  const status = await queryStatus(session.connection, session.client.workflow.getHandle(id), STATUS_QUERY_MS).catch(
    (err: unknown) => (err instanceof WorkflowNotFoundError ? ('unknown' as const) : null),
  );
  if (status === 'unknown') return status;
  if (!status || status.result) return null;
  return {
    phase: status.phase,
    state: status.state,
    ...(status.human
      ? {
          human: {
            state: status.human.state,
            prompt: status.human.prompt,
            ask: status.human.ask,
            ...(status.human.options ? { options: status.human.options } : {}),
            ...(status.human.schema === undefined ? {} : { schema: status.human.schema }),
            since: status.human.since,
            ...(status.human.deadline ? { deadline: status.human.deadline } : {}),
          },
        }
      : {}),
    ...(status.paused
      ? {
          paused: {
            by: status.paused.by,
            since: status.paused.since,
            holding: status.paused.holding,
            ...(status.paused.next ? { next: status.paused.next } : {}),
          },
        }
      : {}),
    ...(status.fanout ? { fanout: status.fanout } : {}),
    ...(status.rate_limited
      ? {
          rate_limited: {
            kind: status.rate_limited.kind,
            message: status.rate_limited.message,
            resumes_at: status.rate_limited.resumes_at,
          },
        }
      : {}),
  };
}
