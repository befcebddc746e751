/**
 * Entering a human state: the question is rendered, `human_wait` emitted, and the run waits for
 * the `await_human` effect's answer (or its deadline). The answer's handling is in on-human.ts.
 */
import { interpolate } from '../interpolate.js';
import { humanAsk } from '../human.js';
import type { StateConfig } from '../schema.js';
import { emit, messageOf, scopeOf, setEffect, type Draft } from './draft.js';

/**
 * Ask the current human state's question. A prompt that cannot be rendered is the state's error
 * (`fail`: the caller's failState), like an action that cannot be rendered.
 */
export function askHuman(d: Draft, state: StateConfig, fail: (message: string) => void): void {
  const { snap, def } = d;
  let prompt: string;
  try {
    prompt = interpolate(state.prompt ?? '', scopeOf(def, snap, d.now));
  } catch (err) {
    return fail(messageOf(err));
  }
  const ask = humanAsk(state);
  const options = ask === 'choice' ? state.options : undefined;
  const deadline = state.timeout === undefined ? undefined : d.now + state.timeout * 1000;
  emit(d, 'human_wait', {
    state: snap.current,
    prompt,
    ask,
    ...(options ? { options } : {}),
    ...(deadline === undefined ? {} : { deadline: new Date(deadline).toISOString() }),
  });
  snap.human = {
    state: snap.current,
    prompt,
    ask,
    ...(options ? { options } : {}),
    since_ms: d.now,
    ...(deadline === undefined ? {} : { deadline_ms: deadline }),
  };
  snap.phase = 'human';
  const notify = state.notify ?? def.notify;
  setEffect(d, {
    type: 'await_human',
    state: snap.current,
    prompt,
    ask,
    ...(options ? { options } : {}),
    ...(deadline === undefined ? {} : { deadline_ms: deadline }),
    ...(notify === undefined ? {} : { notify }),
  });
}
