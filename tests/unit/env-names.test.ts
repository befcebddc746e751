import { describe, expect, it } from 'vitest';
import { loopEnvNames } from '../../fsm/definition/env-names.js';
import type { LoopDefinition } from '../../fsm/schema.js';

describe('loopEnvNames', () => {
  it('finds every ${env.*} the loop names, anywhere, once', () => {
    const def = {
      name: 'l',
      initial: 'a',
      max_iterations: 3,
      context: { token: '${env.API_TOKEN}', n: 1 },
      states: {
        a: { action: 'curl -H "$${X}" ${env.API_TOKEN} ${env.HOST:-localhost}', next: 'b' },
        b: {
          action: 'fix ${env.DB_PASS}',
          action_type: 'prompt',
          evaluate: { type: 'llm_structured', prompt: 'ok? ${env.JUDGE_KEY}' },
          terminal: true,
        },
        c: { action: 'broken ${env.', terminal: true },
      },
    } as unknown as LoopDefinition;
    expect(loopEnvNames(def)).toEqual(['API_TOKEN', 'DB_PASS', 'HOST', 'JUDGE_KEY']);
  });
});
