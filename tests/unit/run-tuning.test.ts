/** The tuning a run records from the environment of the command that starts it. */
import { describe, expect, it } from 'vitest';
import { heartbeatTimeout, MIN_HEARTBEAT_TIMEOUT_S, runTuning } from '../../runs/start/start-run.js';

describe('runTuning', () => {
  it('records the local-activity bound, and no heartbeat timeout unless one is set (the workflow keeps 30 s)', () => {
    expect(runTuning({})).toEqual({ localActivityMaxTimeoutS: 30 });
    expect(runTuning({ LL_LOCAL_ACTIVITY_MAX_TIMEOUT_S: '0' })).toEqual({ localActivityMaxTimeoutS: 0 });
  });

  it('LL_HEARTBEAT_TIMEOUT_S: whole seconds, never below the minimum; not a number is ignored', () => {
    expect(runTuning({ LL_HEARTBEAT_TIMEOUT_S: '12' })).toEqual({
      localActivityMaxTimeoutS: 30,
      heartbeatTimeoutS: 12,
    });
    expect(heartbeatTimeout({ LL_HEARTBEAT_TIMEOUT_S: '90.4' })).toEqual({ heartbeatTimeoutS: 90 });
    expect(heartbeatTimeout({ LL_HEARTBEAT_TIMEOUT_S: '1' })).toEqual({ heartbeatTimeoutS: MIN_HEARTBEAT_TIMEOUT_S });
    expect(heartbeatTimeout({ LL_HEARTBEAT_TIMEOUT_S: '-3' })).toEqual({ heartbeatTimeoutS: MIN_HEARTBEAT_TIMEOUT_S });
    expect(heartbeatTimeout({ LL_HEARTBEAT_TIMEOUT_S: 'soon' })).toEqual({});
    expect(heartbeatTimeout({ LL_HEARTBEAT_TIMEOUT_S: ' ' })).toEqual({});
  });
});
