/**
 * `resume` and `rerun` are users of the runs service: the service makes the run (printing
 * nothing), the command says what was done and follows the run by the service's `follow`, or,
 * with `--background`, says how to follow it. A runs service standing in for both implementations
 * records what the commands ask of it; what they print is the commands' own.
 */
import { describe, expect, it } from 'vitest';
import { resumeCommand } from '../../client/commands/resume.js';
import { rerunCommand } from '../../client/commands/rerun.js';
import type { RunsService } from '../../runs/service/interface.js';
import type { ResumedRun, ResumeRequest } from '../../runs/resume/resume-run.js';
import type { RerunRequest, RerunStarted } from '../../runs/control/rerun.js';
import type { RunFollow } from '../../runs/follow/run-follow.js';
import type { ExecutionResult } from '../../fsm/types.js';
import { EXIT } from '../../errors/exit-codes.js';

const RESULT: ExecutionResult = {
  loop: 'fix',
  final_state: 'done',
  iterations: 2,
  steps: 3,
  terminated_by: 'terminal',
  failure: true,
  duration_ms: 5,
  captured: {},
};

/** A runs service whose `resume` / `rerun` answer `made`, and whose `follow` ends the run with RESULT. */
function service(made: { resume?: (req: ResumeRequest) => ResumedRun; rerun?: RerunStarted }) {
  const asked: { resume: ResumeRequest[]; rerun: RerunRequest[]; follow: RunFollow[] } = {
    resume: [],
    rerun: [],
    follow: [],
  };
  const refuse = async (): Promise<never> => {
    throw new Error('not asked of resume or rerun');
  };
  const runs: RunsService = {
    status: refuse,
    logs: refuse,
    history: refuse,
    running: refuse,
    inbox: refuse,
    queues: refuse,
    start: refuse,
    stop: refuse,
    pause: refuse,
    unpause: refuse,
    steer: refuse,
    answer: refuse,
    resume: async (req) => {
      asked.resume.push(req);
      if (!made.resume) throw new Error('no resume');
      return made.resume(req);
    },
    rerun: async (req) => {
      asked.rerun.push(req);
      if (!made.rerun) throw new Error('no rerun');
      return made.rerun;
    },
    follow: async (req) => {
      asked.follow.push(req);
      return {
        workflowId: req.workflowId,
        events: [],
        end: { status: 'completed', result: RESULT },
        input: undefined,
        warnings: [],
      };
    },
  };
  return { runs, asked };
}

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, opts: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) } };
}

const INFO = { instanceId: 'fix-1', eventsFile: '/nowhere/fix-1.events.jsonl' };

describe('resume through the runs service', () => {
  it('follows an open run by the service, saying what was done on the way', async () => {
    const { runs, asked } = service({
      resume: (req) => {
        req.onNote?.({ kind: 'handed-off', id: 'fix-1', state: 'check' });
        return { kind: 'following', id: 'fix-1', worker: { pid: 7, host: 'h' }, maxIterations: 5, info: INFO };
      },
    });
    const { out, opts } = io();
    const code = await resumeCommand({ cwd: '/here', target: 'fix', context: [], json: false, runs, ...opts });
    expect(asked.resume).toMatchObject([{ cwd: '/here', target: 'fix', follows: true }]);
    expect(asked.follow).toMatchObject([{ cwd: '/here', workflowId: 'fix-1' }]);
    expect(out.slice(0, 2)).toEqual([
      'fix-1 was paused on a handoff: state check runs again, continuing from it\n',
      'fix-1 is still open: the worker pid 7 on h serves it; following it\n',
    ]);
    // The run's result is the exit code (a failure terminal's).
    expect(code).toBe(EXIT.failureTerminal);
  });

  it('prints a stopped run continued in the background, and follows nothing', async () => {
    const resumed: ResumedRun = {
      kind: 'resumed',
      id: 'fix-1-r1',
      resumedFrom: 'fix-1',
      reason: 'cancelled',
      state: 'check',
      iteration: 2,
      maxIterations: 5,
      info: { ...INFO, instanceId: 'fix-1-r1' },
    };
    const json = service({ resume: () => resumed });
    const asJson = io();
    const base = { cwd: '/here', target: 'fix-1', context: [], background: true };
    expect(await resumeCommand({ ...base, json: true, runs: json.runs, ...asJson.opts })).toBe(0);
    expect(json.asked.resume).toMatchObject([{ follows: false }]);
    expect(json.asked.follow).toEqual([]);
    expect(JSON.parse(asJson.out.join(''))).toEqual({ instance_id: 'fix-1-r1', resumed_from: 'fix-1' });

    const text = service({ resume: () => resumed });
    const asText = io();
    await resumeCommand({ ...base, json: false, runs: text.runs, ...asText.opts });
    expect(asText.out.join('')).toBe(
      'resuming fix-1 (cancelled in state check, pass 2/5) as fix-1-r1, in the background\n' +
        '  follow: ll-loop status fix-1-r1 --follow\n  stop:   ll-loop stop fix-1-r1\n',
    );
  });

  it('prints a continuation followed with --json as run --json does, plus resumed_from', async () => {
    const { runs, asked } = service({
      resume: () => ({
        kind: 'resumed',
        id: 'fix-1-r1',
        resumedFrom: 'fix-1',
        reason: 'cancelled',
        state: 'check',
        iteration: 2,
        maxIterations: 5,
        info: { ...INFO, instanceId: 'fix-1-r1' },
      }),
    });
    const { out, opts } = io();
    const code = await resumeCommand({ cwd: '/here', target: 'fix-1', context: [], json: true, runs, ...opts });
    expect(asked.follow).toMatchObject([{ workflowId: 'fix-1-r1' }]);
    expect(JSON.parse(out.join(''))).toMatchObject({
      instance_id: 'fix-1-r1',
      resumed_from: 'fix-1',
      final_state: 'done',
    });
    expect(code).toBe(EXIT.failureTerminal);
  });
});

describe('rerun through the runs service', () => {
  const started: RerunStarted = {
    id: 'fix-1-f1',
    runId: 'fix-1',
    forkedFrom: 'fix-1@12',
    state: 'check',
    visit: 2,
    visits: 3,
    event: 12,
    maxIterations: 5,
    info: { ...INFO, instanceId: 'fix-1-f1' },
  };

  it('says where the new run was forked, and follows it by the service', async () => {
    const { runs, asked } = service({ rerun: started });
    const { out, opts } = io();
    const code = await rerunCommand({
      cwd: '/here',
      target: 'fix-1',
      from: 'check#2',
      context: ['a=b'],
      json: false,
      runs,
      ...opts,
    });
    expect(asked.rerun).toMatchObject([
      { cwd: '/here', target: 'fix-1', from: 'check#2', context: ['a=b'], follows: true },
    ]);
    expect(asked.follow).toMatchObject([{ cwd: '/here', workflowId: 'fix-1-f1' }]);
    expect(out[0]).toBe('rerunning fix-1 from state check#2 of 3 (event 12) as fix-1-f1\n');
    expect(code).toBe(EXIT.failureTerminal);
  });

  it('with --background prints the new run and its lineage, and follows nothing', async () => {
    const { runs, asked } = service({ rerun: started });
    const { out, opts } = io();
    const req = { cwd: '/here', target: 'fix-1', from: 'check', context: [], background: true, runs };
    expect(await rerunCommand({ ...req, json: true, ...opts })).toBe(0);
    expect(asked.rerun).toMatchObject([{ follows: false }]);
    expect(asked.follow).toEqual([]);
    expect(JSON.parse(out.join(''))).toEqual({ instance_id: 'fix-1-f1', forked_from: 'fix-1@12' });
  });
});
