/**
 * The outcome bench's split of a run's own time (bench/outcomes/own-split.mjs), on a history as
 * Temporal gives it: a workflow task that ran a quick action as a local activity, a remote
 * activity whose result carries its process's time, and the workflow task after it.
 */
import { describe, expect, it } from 'vitest';
import { ownSplit } from '../../bench/outcomes/own-split.mjs';

const at = (ms: number) => ({ seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 });
const payload = (value: unknown) => ({ payloads: [{ data: new TextEncoder().encode(JSON.stringify(value)) }] });

const history = [
  { eventId: '1', eventTime: at(1000), workflowExecutionStartedEventAttributes: {} },
  { eventId: '2', eventTime: at(1000), workflowTaskScheduledEventAttributes: {} },
  { eventId: '3', eventTime: at(1010), workflowTaskStartedEventAttributes: { scheduledEventId: '2' } },
  // 70 ms of task, 40 of them the quick action's process (a local activity).
  { eventId: '4', eventTime: at(1070), workflowTaskCompletedEventAttributes: { scheduledEventId: '2' } },
  { eventId: '5', eventTime: at(1070), markerRecordedEventAttributes: { markerName: 'core_local_activity' } },
  { eventId: '6', eventTime: at(1070), activityTaskScheduledEventAttributes: {} },
  { eventId: '7', eventTime: at(1071), activityTaskStartedEventAttributes: { scheduledEventId: '6' } },
  // 300 ms of activity, 250 of them its process.
  {
    eventId: '8',
    eventTime: at(1370),
    activityTaskCompletedEventAttributes: {
      scheduledEventId: '6',
      result: payload({ exit_code: 0, duration_ms: 250 }),
    },
  },
  { eventId: '9', eventTime: at(1370), workflowTaskScheduledEventAttributes: {} },
  { eventId: '10', eventTime: at(1375), workflowTaskStartedEventAttributes: { scheduledEventId: '9' } },
  { eventId: '11', eventTime: at(1390), workflowTaskCompletedEventAttributes: { scheduledEventId: '9' } },
];
const events = [
  { event: 'action_complete', state: 'pin', duration_ms: 40 },
  { event: 'action_complete', state: 'fix', duration_ms: 250 },
];

describe('own time split', () => {
  it('workflow tasks less the quick actions in them, activities less their processes, the rest', () => {
    // The run's clock: first task started (1010) to last task started (1375), less 290 ms of actions;
    // its tasks within it: 60 ms of the first (less its 40 ms action) and 5 of the last.
    const own = 1375 - 1010 - 290;
    expect(ownSplit(history, own, events)).toMatchObject({
      workflow_tasks_ms: 60 - 40 + 5,
      activities_ms: 50,
      rest_ms: 0,
    });
  });

  it('by hop: the tasks’ dispatch and run, the activities’ dispatch and work around their processes', () => {
    // The first task's dispatch is before the run's clock starts; the last one's run after it ends.
    expect(ownSplit(history, 1375 - 1010 - 290, events).hops_ms).toEqual({
      task_dispatch: 5,
      task_run: 60 - 40,
      activity_dispatch: 1,
      activity_work: 300 - 1 - 250,
    });
  });

  it('a failed activity counts whole: no process time of it is known', () => {
    const failed = history.map((e) =>
      e.eventId === '8'
        ? { eventId: '8', eventTime: at(1370), activityTaskFailedEventAttributes: { scheduledEventId: '6' } }
        : e,
    );
    expect(ownSplit(failed, 325, [events[0]!])).toMatchObject({
      workflow_tasks_ms: 25,
      activities_ms: 300,
      rest_ms: 0,
    });
  });

  it('a quick action the last task ran (its marker after that task) is within the run, not taken from the tasks before it', () => {
    // The last task (1375 to 1430) ran the check `pin` again as a burst of 45 ms before the run ended.
    const burst = { facts: [{ type: 'action_done', result: { exit_code: 0, duration_ms: 45 } }] };
    const last = [
      ...history.slice(0, -1),
      { eventId: '11', eventTime: at(1430), workflowTaskCompletedEventAttributes: { scheduledEventId: '9' } },
      {
        eventId: '12',
        eventTime: at(1430),
        markerRecordedEventAttributes: { markerName: 'core_local_activity', details: { result: payload(burst) } },
      },
    ];
    const withPin = [...events, { event: 'action_complete', state: 'pin', duration_ms: 45 }];
    // The clock runs to 1375 + 45; the last task counts 45 ms of it, all of them its action's.
    const own = 1375 + 45 - 1010 - 290 - 45;
    expect(ownSplit(last, own, withPin)).toMatchObject({
      workflow_tasks_ms: 60 - 40 + 5,
      activities_ms: 50,
      rest_ms: 0,
    });
  });
});
