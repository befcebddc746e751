/**
 * Replay scenarios a person drives: a human state's answers, pause and steer, a handoff resumed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pauseUpdate, steerUpdate } from '../../../workflows/control-definitions.js';
import { answerHumanUpdate, resumeHandoffUpdate } from '../../../workflows/definitions.js';
import { BY, until, type Scenario } from './support.js';

export const PEOPLE_SCENARIOS: Scenario[] = [
  {
    name: 'human',
    covers:
      'human states: an approval answered with an edit through the answerHuman Update (captured answer, by), a choice, and a text question that times out on its durable deadline (on_timeout)',
    definition: {
      name: 'human',
      initial: 'plan',
      states: {
        plan: { action: 'echo the plan', capture: 'plan', next: 'review' },
        review: {
          action_type: 'human',
          prompt: 'Apply ${captured.plan.output}?',
          timeout: 3600,
          on_yes: 'pick',
          on_no: 'done',
          on_edit: 'pick',
        },
        pick: {
          action_type: 'human',
          ask: 'choice',
          prompt: 'Which way?',
          options: ['ship', 'drop'],
          timeout: 3600,
          on_ship: 'wait',
          on_drop: 'done',
        },
        wait: { action_type: 'human', ask: 'text', prompt: 'Anything else?', timeout: 1, on_timeout: 'report' },
        report: { action: 'echo "${captured.review.edit} by ${captured.review.by}"', next: 'done' },
        done: { terminal: true },
      },
    },
    drive: async (handle) => {
      await until(handle, 'review to wait', (s) => s.human?.state === 'review');
      await handle.executeUpdate(answerHumanUpdate, {
        args: [{ ...BY, state: 'review', reply: { kind: 'edit', text: 'apply it carefully' } }],
      });
      await until(handle, 'pick to wait', (s) => s.human?.state === 'pick');
      await handle.executeUpdate(answerHumanUpdate, {
        args: [{ ...BY, state: 'pick', reply: { kind: 'choice', option: 'ship' } }],
      });
    },
  },
  {
    name: 'steering',
    covers:
      'steering: pause (the run holds after its action), then steer (which releases it) to another state with a context edit and a note',
    definition: {
      name: 'steering',
      initial: 'plan',
      context: { target: 'all' },
      states: {
        plan: { action: 'while [ ! -f go ]; do sleep 0.05; done; echo plan', next: 'build' },
        build: { action: 'echo "build ${context.target}"', next: 'done' },
        review: { action: 'echo "review ${context.target}"', next: 'done' },
        done: { terminal: true },
      },
    },
    drive: async (handle, p) => {
      await until(handle, 'plan to run', (s) => s.state === 'plan');
      await handle.executeUpdate(pauseUpdate, { args: [BY] });
      writeFileSync(join(p.cwd, 'go'), '');
      await until(handle, 'the run to hold', (s) => s.phase === 'paused');
      await handle.executeUpdate(steerUpdate, {
        args: [{ ...BY, to: 'review', context: { target: 'docs' }, note: 'docs first' }],
      });
    },
  },
  {
    name: 'handoff',
    covers:
      'stdoutSignals: a CONTEXT_HANDOFF line pauses the run (on_handoff: pause) until resumeHandoff; LOOP_STOP ends it',
    definition: {
      name: 'handoff',
      initial: 'work',
      states: {
        work: {
          action:
            'if [ -f resumed ]; then echo "LOOP_STOP: all done"; else touch resumed; echo "CONTEXT_HANDOFF: pick up at b"; fi',
          next: 'work',
        },
        done: { terminal: true },
      },
    },
    drive: async (handle) => {
      await until(handle, 'the handoff', (s) => s.phase === 'handoff');
      await handle.executeUpdate(resumeHandoffUpdate);
    },
  },
];
