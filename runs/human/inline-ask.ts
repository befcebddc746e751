/**
 * `ll-loop run` in the foreground on a terminal: a human state's question is asked inline, and
 * the answer goes to the run through the same `answerHuman` update as `ll-loop answer`. The run
 * never depends on this prompt: an answer given elsewhere (or the deadline) closes it, and when
 * the terminal goes away the run simply keeps waiting.
 */
import { createInterface, type Interface } from 'node:readline';
import type { Client, Connection } from '@temporalio/client';
import type { HumanReply } from '../../fsm/human.js';
import type { TimedEvent } from '../../fsm/run/events.js';
import { CliError } from '../../errors/errors.js';
import type { ProjectScope } from '../find/find-runs.js';
import { queryStatus } from '../find/run-target.js';
import { answerRun } from './answer-run.js';

export interface InlineAsk {
  session: { client: Client; connection: Connection };
  runId: string;
  project: ProjectScope;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/**
 * What the inline prompt takes, as it is typed there (not the flags of `ll-loop answer`, whose
 * forms `answer` holds): `yes | no | edit <text>` (edit only where the state routes it), the
 * option, the text, a line of JSON.
 */
export function inlineForms(ask: string, answer: string): string {
  if (ask === 'approval') return /--edit\b/.test(answer) ? 'yes | no | edit <text>' : 'yes | no';
  if (ask === 'choice') return 'one of the options';
  if (ask === 'json') return 'a line of JSON';
  return 'the text, on one line';
}

/** The reply a typed line gives for a question of kind `ask`, or why it gives none. */
export function lineReply(ask: string, line: string): HumanReply | { problem: string } {
  const text = line.trim();
  if (ask === 'approval') {
    if (/^(y|yes)$/i.test(text)) return { kind: 'yes' };
    if (/^(n|no)$/i.test(text)) return { kind: 'no' };
    // `--edit TEXT` too: the form `ll-loop answer` takes, which a person may type here.
    const edit = /^(?:e|edit|--edit)(?:\s+|=)(.+)$/is.exec(text);
    if (edit) return { kind: 'edit', text: edit[1]!.trim() };
    return { problem: 'answer yes, no, or edit <text>' };
  }
  if (ask === 'choice') return text === '' ? { problem: 'type one of the options' } : { kind: 'choice', option: text };
  if (ask === 'json') {
    try {
      return { kind: 'json', value: JSON.parse(text) as unknown };
    } catch (err) {
      return { problem: `that is not JSON: ${err instanceof Error ? err.message : String(err)}` };
    }
  }
  return text === '' ? { problem: 'type the answer' } : { kind: 'text', text: line };
}

/** An event listener for the followed run that asks each human state's question inline. */
export function inlineAsker(a: InlineAsk): { onEvent: (event: TimedEvent) => void; close: () => void } {
  let rl: Interface | undefined;
  let asking: string | undefined;
  const stop = (): void => {
    asking = undefined;
    rl?.close();
    rl = undefined;
  };
  const ask = async (state: string): Promise<void> => {
    // The followed history may be replayed from the start: ask only what the run still waits for.
    const status = await queryStatus(a.session.connection, a.session.client.workflow.getHandle(a.runId), 15_000);
    const human = status?.human;
    if (human === undefined || human.state !== state || asking !== state) return;
    const forms = inlineForms(human.ask, human.answer);
    const choices = human.options ? ` [${human.options.join('/')}]` : '';
    rl = createInterface({ input: a.input, output: a.output, terminal: true });
    rl.on('close', () => {
      rl = undefined;
    });
    const prompt = (): void => rl?.setPrompt(`answer${choices} (${forms}, or later with ll-loop answer): `);
    prompt();
    rl.prompt();
    rl.on('line', (line) => {
      const reply = lineReply(human.ask, line);
      if ('problem' in reply) {
        a.output.write(`${reply.problem}\n`);
        rl?.prompt();
        return;
      }
      answerRun(a.session, a.runId, reply, a.project).then(
        (ack) => {
          a.output.write(`answered ${ack.verdict}\n`);
          stop();
        },
        (err: unknown) => {
          a.output.write(`error: ${err instanceof CliError || err instanceof Error ? err.message : String(err)}\n`);
          if (asking === state) rl?.prompt();
        },
      );
    });
  };
  return {
    onEvent: (event) => {
      if (event.subloop !== undefined) return;
      if (event.event === 'human_wait' && typeof event.state === 'string') {
        stop();
        asking = event.state;
        void ask(event.state).catch(() => undefined);
      } else if (event.event === 'human_answer' || event.event === 'human_timeout' || event.event === 'loop_complete')
        stop();
    },
    close: stop,
  };
}
