// Where a run's own time goes (bench/outcomes.mjs), from its history and its events. Own time is
// the run's duration less its actions' (bench/outcomes/matrix.mjs figures); here it is split into
//   workflow_tasks: each workflow task from scheduled to completed (the server's hand-off to the
//     worker, the workflow's code, the completion), less the quick actions run inside them as
//     local activities;
//   activities: each remote activity from scheduled to completed less its actions' process time
//     (its action's, and the quick actions it ran after it: the hand-off to the worker, the
//     activity's own work around the processes — tamper_guard's listings, log and journal files,
//     the core deciding the quick actions —, the completion);
//   rest: what neither holds (durable timers; a workflow task's time beyond the run's clock).
// And each hop of those (`hops`): a task's dispatch (scheduled → started: the server's hand-off,
// on the worker's sticky queue) and run (started → completed: the worker's activation and the
// completion's way back), an activity's dispatch (scheduled → started: none when the server hands
// it over eagerly with the task's completion) and work (started → completed less its process).
const ms = (t) => Number(String(t.seconds)) * 1000 + (t.nanos ?? 0) / 1e6;

/** The JSON of a Temporal payload list's first payload, or undefined. */
function firstPayload(payloads) {
  const data = payloads?.payloads?.[0]?.data;
  if (!data) return undefined;
  try {
    return JSON.parse(Buffer.from(data).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The process time of the quick actions a local activity's marker records (a burst's facts, or one action). */
function localActionsMs(marker) {
  const result = firstPayload(marker.details?.result);
  if (Array.isArray(result?.facts)) return result.facts.reduce((sum, f) => sum + Number(f.result?.duration_ms ?? 0), 0);
  const one = Number(result?.duration_ms ?? 0);
  return Number.isFinite(one) ? one : 0;
}

/**
 * `history`: the run's history events; `own`: its own time (ms); `events`: its run events. The
 * run's clock runs from its first workflow task's start to its last one's (the workflow's time),
 * and on through the quick actions that last task ran as local activities (their markers follow
 * its completion), so the tasks are counted within that window.
 */
export function ownSplit(history, own, events) {
  const starts = history.filter((e) => e.workflowTaskStartedEventAttributes).map((e) => ms(e.eventTime));
  const lastDone = history.findLastIndex((e) => e.workflowTaskCompletedEventAttributes);
  const lastLocal = history
    .slice(lastDone + 1)
    .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')
    .reduce((sum, e) => sum + localActionsMs(e.markerRecordedEventAttributes), 0);
  const from = starts[0] ?? 0;
  const to = (starts.at(-1) ?? 0) + lastLocal;
  const within = (a, b) => Math.max(0, Math.min(b, to) - Math.max(a, from));
  const at = new Map();
  /** Started times by the scheduled event's id. */
  const started = new Map();
  let tasks = 0;
  let taskDispatch = 0;
  let activities = 0;
  let activityDispatch = 0;
  let remoteActions = 0;
  for (const e of history) {
    const t = ms(e.eventTime);
    const id = Number(String(e.eventId));
    if (e.workflowTaskScheduledEventAttributes || e.activityTaskScheduledEventAttributes) at.set(id, t);
    const start = e.workflowTaskStartedEventAttributes ?? e.activityTaskStartedEventAttributes;
    if (start?.scheduledEventId !== undefined) started.set(Number(String(start.scheduledEventId)), t);
    const wft = e.workflowTaskCompletedEventAttributes ?? e.workflowTaskFailedEventAttributes;
    if (wft) {
      const scheduled = Number(String(wft.scheduledEventId));
      const from = at.get(scheduled) ?? t;
      tasks += within(from, t);
      taskDispatch += within(from, started.get(scheduled) ?? from);
    }
    const done = e.activityTaskCompletedEventAttributes;
    const act = done ?? e.activityTaskFailedEventAttributes;
    if (act) {
      const scheduled = Number(String(act.scheduledEventId));
      const from = at.get(scheduled) ?? t;
      activities += t - from;
      activityDispatch += (started.get(scheduled) ?? from) - from;
    }
    // runAction's result carries its process's time (a failed attempt's is not known), and that
    // of the quick actions it ran after it (`burst_after`).
    if (done) {
      const result = firstPayload(done.result);
      const after = (result?.burst_after?.facts ?? []).reduce((sum, f) => sum + Number(f.result?.duration_ms ?? 0), 0);
      const duration = Number(result?.duration_ms ?? 0) + after;
      if (Number.isFinite(duration)) remoteActions += duration;
    }
  }
  const allActions = events
    .filter((e) => e.event === 'action_complete')
    .reduce((sum, e) => sum + Number(e.duration_ms ?? 0), 0);
  const workflowTasks = tasks - Math.max(0, allActions - remoteActions);
  const inActivities = activities - remoteActions;
  return {
    workflow_tasks_ms: Math.round(workflowTasks),
    activities_ms: Math.round(inActivities),
    rest_ms: Math.round(own - workflowTasks - inActivities),
    hops_ms: {
      task_dispatch: Math.round(taskDispatch),
      task_run: Math.round(workflowTasks - taskDispatch),
      activity_dispatch: Math.round(activityDispatch),
      activity_work: Math.round(inActivities - activityDispatch),
    },
  };
}
