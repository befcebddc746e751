/**
 * Acting on a run from its page, besides stop and resume: answer the human state it waits in
 * (approval yes/no/edit, a choice, text, JSON — a refusal such as a schema error is shown as the
 * CLI says it), pause, unpause, steer (go to a state, set context K=V, a note) and re-run from a
 * visit of a state on its path (the page then shows the new run). Each is a POST with the token,
 * carried out by the server through the CLI's own client code.
 */
import { safeText } from '../../reporters/safe-text.js';
import type { HumanReply } from '../../fsm/human.js';
import type { ActionAnswer, ActRequest, RunStatusView } from '../server/wire.js';
import { act } from './api.js';
import { contextLines, visitsOf } from './act-forms.js';
import { fill, h } from './dom.js';

export interface ActPanelView {
  runId: string;
  open: boolean;
  connected: boolean;
  states: string[];
  /** The approval states that take an edit (an `on_edit` route): only these offer one. */
  editable: Set<string>;
  path: string[];
  status: RunStatusView | null;
}

export class ActPanel {
  readonly el: HTMLElement;
  private readonly human = h('section', { class: 'human-box', id: 'human', hidden: '' });
  /** Pause, unpause and steer: for an open run only (a closed run shows re-run alone). */
  private readonly live = h('div', { class: 'live-controls', id: 'live-controls' });
  private readonly controls = h('section', { class: 'controls', id: 'controls' });
  private readonly result = h('p', { class: 'answer', id: 'act-answer', role: 'status' });
  private humanKey = '';
  private view: ActPanelView | undefined;
  private readonly pause = h('button', { type: 'button', id: 'pause' }, 'Pause');
  private readonly unpause = h('button', { type: 'button', id: 'unpause' }, 'Unpause');
  private readonly steerTo = h('select', { id: 'steer-to', 'aria-label': 'steer to state' });
  private readonly steerContext = h('textarea', {
    id: 'steer-context',
    rows: '2',
    placeholder: 'context K=V, one a line',
  });
  private readonly steerNote = h('input', { id: 'steer-note', type: 'text', placeholder: 'note' });
  private readonly steer = h('button', { type: 'button', id: 'steer' }, 'Steer');
  private readonly rerunFrom = h('select', { id: 'rerun-from', 'aria-label': 're-run from' });
  private readonly rerunContext = h('textarea', {
    id: 'rerun-context',
    rows: '1',
    placeholder: 'context K=V, one a line',
  });
  private readonly rerun = h('button', { type: 'button', id: 'rerun' }, 'Re-run from here');

  /** `onDone`: after each answer (the page refreshes the status); `onNewRun`: a rerun started one. */
  constructor(
    private readonly onDone: () => void,
    private readonly onNewRun: (id: string) => void,
  ) {
    fill(
      this.live,
      h('div', { class: 'row' }, this.pause, this.unpause),
      h('div', { class: 'row' }, h('label', {}, 'Steer to ', this.steerTo), this.steerNote, this.steer),
      this.steerContext,
    );
    fill(
      this.controls,
      this.live,
      h('div', { class: 'row' }, h('label', {}, 'Re-run from ', this.rerunFrom), this.rerunContext, this.rerun),
    );
    this.el = h('div', { class: 'act-panel' }, this.human, this.controls, this.result);
    this.pause.addEventListener('click', () => this.send(this.pause, { action: 'pause' }));
    this.unpause.addEventListener('click', () => this.send(this.unpause, { action: 'unpause' }));
    this.steer.addEventListener('click', () =>
      this.send(this.steer, {
        action: 'steer',
        to: this.steerTo.value,
        ...(this.steerNote.value ? { note: this.steerNote.value } : {}),
        context: contextLines(this.steerContext.value),
      }),
    );
    this.rerun.addEventListener('click', () =>
      this.send(this.rerun, {
        action: 'rerun',
        from: this.rerunFrom.value,
        context: contextLines(this.rerunContext.value),
      }),
    );
  }

  private send(button: HTMLButtonElement, request: ActRequest): void {
    button.disabled = true;
    this.say({ ok: true, message: `${request.action}…` }, button);
    void act(this.view?.runId ?? '', request).then((a) => {
      button.disabled = false;
      this.say(a, button);
      if (a.ok && a.run) this.onNewRun(a.run);
      this.onDone();
    });
  }

  /**
   * Shows an answer (or a refusal) beside the control that asked: under the question for an
   * answer to it (the question is redrawn when the run moves on, the answer stays), else under the
   * clicked button's row.
   */
  private say(a: ActionAnswer, button: HTMLButtonElement): void {
    const anchor = this.human.contains(button) ? this.human : (button.closest('.row') ?? button);
    if (anchor.nextElementSibling !== this.result) anchor.after(this.result);
    this.result.textContent = safeText(a.message);
    this.result.className = `answer ${a.ok ? 'ok' : 'bad'}`;
  }

  update(view: ActPanelView): void {
    this.view = view;
    const status = view.status;
    const live = view.open && view.connected;
    this.pause.disabled = !live || status?.paused !== undefined;
    this.unpause.disabled = !live || status?.paused === undefined;
    this.steer.disabled = !live || view.states.length === 0;
    this.steerTo.disabled = this.steer.disabled;
    options(this.steerTo, view.states);
    options(this.rerunFrom, visitsOf(view.path));
    this.rerun.disabled = !view.connected || view.path.length === 0;
    this.live.hidden = !view.open;
    this.drawHuman(live ? status?.human : undefined, view.editable);
  }

  /** The question a run waits on, with the controls its kind of answer takes (redrawn only when it changes). */
  private drawHuman(human: RunStatusView['human'], editable: Set<string>): void {
    const key = human ? `${human.state}|${human.since}|${editable.has(human.state)}` : '';
    if (key === this.humanKey) return;
    this.humanKey = key;
    this.human.hidden = !human;
    if (!human) {
      fill(this.human);
      return;
    }
    const reply = (r: HumanReply) => (b: HTMLButtonElement) => this.send(b, { action: 'answer', reply: r });
    const button = (id: string, label: string, onClick: (b: HTMLButtonElement) => void): HTMLButtonElement => {
      const b = h('button', { type: 'button', id }, label);
      b.addEventListener('click', () => onClick(b));
      return b;
    };
    const text = h('textarea', { id: 'answer-text', rows: human.ask === 'json' ? '5' : '3' });
    const rows: HTMLElement[] = [];
    if (human.ask === 'approval') {
      rows.push(
        h(
          'div',
          { class: 'row' },
          button('answer-yes', 'Yes', reply({ kind: 'yes' })),
          button('answer-no', 'No', reply({ kind: 'no' })),
        ),
      );
      // An edit only where the state routes one (`on_edit`): elsewhere the run refuses it.
      if (editable.has(human.state))
        rows.push(
          text,
          h(
            'div',
            { class: 'row' },
            button('answer-edit', 'Answer with this edit', (b) => {
              // The run refuses an empty edit in the CLI's words (--edit TEXT): said here in the page's.
              if (text.value === '') {
                this.say({ ok: false, message: 'write the edit in the box above first (or answer Yes or No)' }, b);
                return;
              }
              this.send(b, { action: 'answer', reply: { kind: 'edit', text: text.value } });
            }),
          ),
        );
    } else if (human.ask === 'choice') {
      rows.push(
        h(
          'div',
          { class: 'row' },
          ...(human.options ?? []).map((o, i) => button(`answer-choice-${i}`, o, reply({ kind: 'choice', option: o }))),
        ),
      );
    } else if (human.ask === 'json') {
      if (human.schema !== undefined)
        rows.push(h('pre', { class: 'schema' }, safeText(JSON.stringify(human.schema, null, 2))));
      rows.push(
        text,
        button('answer-send', 'Send JSON', (b) => {
          let value: unknown;
          try {
            value = JSON.parse(text.value) as unknown;
          } catch (err) {
            this.say({ ok: false, message: `not JSON: ${(err as Error).message}` }, b);
            return;
          }
          this.send(b, { action: 'answer', reply: { kind: 'json', value } });
        }),
      );
    } else {
      rows.push(
        text,
        button('answer-send', 'Send', (b) =>
          this.send(b, { action: 'answer', reply: { kind: 'text', text: text.value } }),
        ),
      );
    }
    fill(
      this.human,
      h('h3', {}, `Waiting for a person · ${human.state}`),
      h('pre', { class: 'prompt', id: 'human-prompt' }, safeText(human.prompt)),
      h(
        'p',
        { class: 'when', id: 'human-deadline' },
        `waiting since ${new Date(human.since).toLocaleString()}`,
        human.deadline ? ` · deadline ${new Date(human.deadline).toLocaleString()}` : ' · no deadline',
      ),
      ...rows,
    );
  }
}

function options(select: HTMLSelectElement, values: string[]): void {
  const now = [...select.options].map((o) => o.value);
  if (now.length === values.length && now.every((v, i) => v === values[i])) return;
  const current = select.value;
  fill(select, ...values.map((v) => h('option', { value: v }, v)));
  if (values.includes(current)) select.value = current;
}
