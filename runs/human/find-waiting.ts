/**
 * Runs waiting for a person: the one a command names (a run id, or a loop name meaning its run
 * that waits), and every one of a project (`ll-loop inbox`), found through the `LoopStatus`
 * search attribute (`waiting`) and described by their own status query.
 */
import type { Client, Connection } from '@temporalio/client';
import { humanEndedText } from '../../fsm/human.js';
import type { HumanEnded } from '../../fsm/human.js';
import { snapshotQuery, type LoopStatus } from '../../workflows/definitions.js';
import {
  AmbiguousRunError,
  findRuns,
  inProject,
  listRuns,
  runNotFound,
  scheduledRunId,
  type ProjectScope,
  type RunSummary,
} from '../find/find-runs.js';
import { queryStatus } from '../find/run-target.js';
import { AnswerRefusedError } from './human-errors.js';

/** The search attribute value of a run waiting for a person (workflows/run-status.ts). */
const WAITING = 'waiting';

/**
 * The run `target` names for an answer: that run id (of any project), or the one run of loop
 * `target` that waits for a person (else its one open run, whose refusal says where it is).
 */
export async function answerTarget(client: Client, target: string, project: ProjectScope): Promise<RunSummary> {
  const runs = await findRuns(client, target, { project });
  const exact = runs.find((r) => r.id === target || r.id === scheduledRunId(target));
  if (exact) {
    if (!exact.open) {
      const ended = await lastWaitEnded(client, exact.id);
      throw new AnswerRefusedError(
        ended
          ? `${humanEndedText(exact.id, ended)}; it has finished ${endedWhere(exact)}`
          : `run ${exact.id} is not waiting for an answer: it has finished ${endedWhere(exact)}`,
        `see how it ended with ll-loop status ${exact.id}; ll-loop inbox lists the runs waiting for you`,
      );
    }
    return exact;
  }
  if (runs.length === 0) throw await runNotFound(client, target, 'run', project);
  const open = runs.filter((r) => r.open);
  const waiting = open.filter((r) => r.loopStatus === WAITING);
  if (waiting.length === 1) return waiting[0]!;
  if (waiting.length > 1) throw new AmbiguousRunError(target, waiting, 'runs waiting for an answer');
  if (open.length === 1) return open[0]!;
  if (open.length > 1) throw new AmbiguousRunError(target, open, 'open runs');
  throw new AnswerRefusedError(
    `loop "${target}" has no run waiting for an answer (its latest run ${runs[0]!.id} has finished)`,
    'll-loop inbox lists the runs waiting for you',
  );
}

/** How long a finished run's snapshot may take (its worker replays its history) before it is left out. */
const ENDED_QUERY_MS = 10_000;

/**
 * How the last wait for a person of the finished run `id` ended (the snapshot keeps it), so that
 * an answer that came too late is told why; undefined when it never waited, or no worker answers.
 */
async function lastWaitEnded(client: Client, id: string): Promise<HumanEnded | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ENDED_QUERY_MS)));
  try {
    const snap = await Promise.race([client.workflow.getHandle(id).query(snapshotQuery), gaveUp]);
    return snap?.humanEnded;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** Where a closed run ended, from its search attributes: `in state "done" (succeeded)`. */
function endedWhere(run: RunSummary): string {
  const outcome = run.loopStatus ?? run.status.toLowerCase();
  return run.loopState === undefined ? `(${outcome})` : `in state "${run.loopState}" (${outcome})`;
}

/** One entry of the inbox. */
export interface WaitingRun {
  run: string;
  loop: string;
  state: string;
  prompt: string;
  ask: string;
  options?: string[];
  since: string;
  deadline?: string;
  answer: string;
}

/** How long one run's status query may take in the inbox before it is left out. */
const INBOX_QUERY_MS = 5_000;

/**
 * Every run of `project` (of all projects without one) waiting for a person, newest wait first.
 * A run of another project than `here` (the command's) gets a command that answers it from its
 * own directory (`cd <dir> && …`): its run id works from anywhere, but there the command also
 * brings up that project's worker, which the run needs to take the answer.
 */
export async function waitingRuns(
  client: Client,
  connection: Connection,
  project: ProjectScope | undefined,
  here: ProjectScope | undefined = project,
): Promise<WaitingRun[]> {
  const runs = await listRuns(client, {
    openOnly: true,
    where: `LoopStatus = '${WAITING}'`,
    ...(project ? { project } : {}),
  });
  // The question is in each run's memo; only a run that has none (started before the memo) is asked.
  const described = await Promise.all(
    runs.map(async (run) => {
      if (run.human) return entry(run, run.loop, run.human, here);
      const status = await queryStatus(connection, client.workflow.getHandle(run.id), INBOX_QUERY_MS).catch(() => null);
      return status?.human ? entry(run, status.loop, status.human, here) : undefined;
    }),
  );
  return described
    .filter((w): w is WaitingRun => w !== undefined)
    .sort((a, b) => Date.parse(b.since) - Date.parse(a.since));
}

function entry(
  run: RunSummary,
  loop: string,
  h: NonNullable<LoopStatus['human']>,
  here: ProjectScope | undefined,
): WaitingRun {
  const elsewhere = here !== undefined && !inProject(run, here) && run.cwd !== undefined;
  return {
    run: run.id,
    loop,
    state: h.state,
    prompt: h.prompt,
    ask: h.ask,
    ...(h.options ? { options: h.options } : {}),
    since: h.since,
    ...(h.deadline === undefined ? {} : { deadline: h.deadline }),
    answer: elsewhere ? `cd ${shellWord(run.cwd!)} && ${h.answer}` : h.answer,
  };
}

/** A directory as one shell word (quoted only when it needs to be). */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
