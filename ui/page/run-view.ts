/**
 * A run's page: the graph with its current state lit and each edge's count, the path, each
 * action's output (streamed while it runs), captured values, sub-loop children as links, the
 * timeline, and stop/resume. Live from the run's event stream; a cut stream is shown and comes
 * back by itself (the server then sends the whole backlog again and the page starts over).
 */
import { BAD_OUTCOMES, outcomeLabel } from '../../reporters/outcome-words.js';
import { safeText } from '../../reporters/safe-text.js';
import type { RunMessage, RunStatusView } from '../server/wire.js';
import { ActPanel } from './act-panel.js';
import { act, openStream, runStatus } from './api.js';
import { capturedView } from './captured-view.js';
import { childrenList } from './children-view.js';
import { liveBadge } from './live-badge.js';
import { duration, fill, h } from './dom.js';
import { drawGraph, paintGraph, revealNode, type DrawnGraph } from './graph-view.js';
import { applyMessage, emptyModel, litAhead, litState, type ActionView, type RunModel } from './run-model.js';
import { Timeline } from './timeline.js';

const OUTPUT_ACTIONS = 20;

function actionBlock(a: ActionView, outcome: string | undefined): HTMLElement {
  const bits = [a.state, `pass ${a.pass}`];
  if (a.attempt > 1) bits.push(`attempt ${a.attempt}`);
  if (a.depth > 0) bits.unshift(`sub-loop ${a.workflowId} ›`);
  if (a.running) bits.push('running…');
  else if (a.cut) bits.push(`ended with the run${outcome ? ` (${outcomeLabel(outcome)})` : ''}, no exit code`);
  else {
    if (a.exitCode !== undefined) bits.push(`exit ${a.exitCode}`);
    if (a.durationMs !== undefined) bits.push(duration(a.durationMs));
  }
  const cls = a.running ? 'running' : a.cut ? 'cut' : a.exitCode === 0 ? 'ok' : 'bad';
  return h(
    'section',
    { class: `action ${cls}`, 'data-state': a.state },
    h('h4', {}, bits.join(' · ')),
    h('pre', { class: 'output' }, a.text === '' ? emptyOutput(a) : safeText(a.text)),
  );
}

/**
 * An action's output when none was received: nothing yet while it runs; for one the run's end cut
 * short, what it printed is kept nowhere (only a page that watched it live saw it): not "no output".
 */
function emptyOutput(a: ActionView): string {
  if (a.running) return '';
  return a.cut ? '(its output is not kept: the end of the run cut it short)' : '(no output)';
}

export function showRun(root: HTMLElement, runId: string): () => void {
  const model: RunModel = emptyModel(runId);
  let drawn: DrawnGraph | undefined;
  let selected: string | undefined;
  /** The state last brought into the graph's view. */
  let shownState = '';
  let connected = false;
  let scheduled = false;
  const timeline = new Timeline();
  const badge = h('span', { class: 'badge', id: 'run-status' }, 'connecting…');
  /** How the run ended, whole, as `ll-loop status` says it (the error and its fix included). */
  const summary = h('pre', { class: 'end-summary', id: 'run-summary', hidden: '' });
  const conn = h('span', { class: 'conn', id: 'connection' }, '');
  const stop = h('button', { type: 'button', id: 'stop', disabled: '' }, 'Stop');
  const resume = h('button', { type: 'button', id: 'resume', disabled: '' }, 'Resume');
  const answer = h('span', { class: 'answer', id: 'answer', role: 'status' });
  const notice = h('div', { class: 'notice', id: 'notice', hidden: '' });
  const graphBox = h('div', { class: 'graph-box', id: 'graph' });
  const pathBox = h('p', { class: 'path', id: 'path' });
  const outputBox = h('div', { class: 'outputs', id: 'outputs' });
  const outputTitle = h('h3', {}, 'Output');
  const capturedBox = h('div', { class: 'captured', id: 'captured' });
  const childrenBox = h('div', { class: 'children', id: 'children' });
  let status: RunStatusView | null = null;
  let statusTimer: ReturnType<typeof setTimeout> | undefined;
  /** The wait before asking again for a status that did not come (0: it came). */
  let unanswered = 0;
  /** Asks the server what the open run waits for, at most every 300 ms (after events, an action). */
  const refreshStatus = (): void => {
    if (statusTimer !== undefined) return;
    statusTimer = setTimeout(() => {
      statusTimer = undefined;
      if (model.ended) {
        status = null;
        schedule();
        return;
      }
      void runStatus(runId).then((s) => {
        status = s;
        schedule();
        // An open run whose status did not come (its worker not polling yet, say after the server
        // came back) is asked again, every few seconds: a run waiting for a person sends no events
        // that would ask for it, and its question would stay hidden.
        if (s === null && !model.ended) {
          unanswered = Math.min(unanswered === 0 ? 1_000 : unanswered * 2, 10_000);
          setTimeout(refreshStatus, unanswered);
        } else unanswered = 0;
      });
    }, 300);
  };
  const panel = new ActPanel(refreshStatus, (id) => {
    location.hash = `#/run/${encodeURIComponent(id)}`;
  });
  fill(
    root,
    h(
      'header',
      { class: 'run-header' },
      h('a', { href: '#/', class: 'back' }, '← runs'),
      h('h2', {}, h('span', { id: 'run-id' }, runId)),
      badge,
      stop,
      resume,
      answer,
      conn,
      summary,
    ),
    notice,
    h('div', { class: 'panel act-box' }, panel.el),
    h(
      'div',
      { class: 'run-grid' },
      h('div', { class: 'panel graph-panel' }, h('h3', {}, 'Graph'), graphBox, pathBox),
      h(
        'div',
        { class: 'panel side-panel' },
        outputTitle,
        outputBox,
        h('h3', {}, 'Captured'),
        capturedBox,
        h('h3', {}, 'Sub-loops and fan-out'),
        childrenBox,
      ),
    ),
    h('div', { class: 'panel timeline-panel' }, h('h3', {}, 'Events'), timeline.el),
  );

  const render = (): void => {
    scheduled = false;
    if (model.graph && !drawn) {
      drawn = drawGraph(model.graph);
      shownState = '';
      fill(graphBox, drawn.svg);
      drawn.svg.addEventListener('click', (e) => {
        const node = (e.target as Element).closest('[data-state]');
        selected = node ? (node.getAttribute('data-state') ?? undefined) : undefined;
        schedule();
      });
    }
    const lit = litState(model) ?? '';
    if (drawn) {
      paintGraph(drawn, {
        current: lit,
        ended: model.ended,
        visited: new Set(model.path),
        edgeCounts: model.edgeCounts,
      });
      // The lit (or final) state stays in view as the run moves through a graph taller than its box.
      if (lit !== shownState) {
        shownState = lit;
        revealNode(graphBox, drawn, lit);
      }
    }
    const open = !model.ended;
    const live = open ? liveBadge(model.waiting, status, lit) : undefined;
    // An ended run's outcome is known from its loop_complete, before the server's end message.
    const outcome = model.outcome ?? 'ended';
    badge.textContent = live ? live.text : outcomeLabel(outcome);
    badge.className = `badge ${live ? live.kind : outcome}`;
    summary.hidden = live !== undefined || model.end === undefined;
    summary.textContent = safeText(model.end?.summary ?? '');
    summary.className = `end-summary ${BAD_OUTCOMES.includes(outcome) ? 'bad' : ''}`;
    badge.setAttribute('data-current', lit);
    // Lit from the worker's events file, ahead of the history (tests and the curious can tell).
    badge.setAttribute('data-ahead', String(litAhead(model)));
    stop.disabled = !open || !connected;
    // A run that reached a terminal state has nothing to resume; any other end may be continued.
    // (a run paused on a handoff is open, and Resume continues it, as ll-loop resume does).
    resume.disabled = !connected || (open ? !model.waiting : model.terminatedBy === 'terminal');
    const message = model.error ?? model.notice;
    notice.hidden = message === undefined && connected;
    notice.textContent = connected
      ? safeText(message ?? '')
      : 'The ll-loop ui server is unreachable: reconnecting by itself…';
    fill(pathBox, model.ended && model.path.length ? `Path taken: ${model.path.join(' → ')}` : '');
    const actions = model.actions.filter((a) => selected === undefined || a.state === selected).slice(-OUTPUT_ACTIONS);
    outputTitle.textContent = selected === undefined ? 'Output' : `Output of ${selected}`;
    fill(outputBox, ...actions.map((a) => actionBlock(a, model.outcome)));
    outputBox.scrollTop = outputBox.scrollHeight;
    fill(capturedBox, capturedView(model.captured, model.ended));
    fill(childrenBox, childrenList(model, status));
    panel.update({
      runId,
      open,
      connected,
      states: model.graph?.nodes.map((n) => n.name) ?? [],
      editable: new Set(model.graph?.nodes.filter((n) => n.editable).map((n) => n.name)),
      path: model.path,
      status,
    });
    timeline.set(model.events);
  };
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(render);
  };

  const close = openStream<RunMessage>(`/api/run/${encodeURIComponent(runId)}/stream`, {
    onMessage: (m) => {
      if (applyMessage(model, m)) drawn = undefined;
      if (m.type === 'events' || m.type === 'live_state' || m.type === 'end') refreshStatus();
      schedule();
    },
    onConnection: (up) => {
      connected = up;
      if (up) refreshStatus();
      schedule();
    },
  });

  const acting = (button: HTMLButtonElement, what: 'stop' | 'resume'): void => {
    button.addEventListener('click', () => {
      button.disabled = true;
      answer.textContent = what === 'stop' ? 'stopping…' : 'resuming…';
      void act(runId, what).then((a) => {
        answer.textContent = a.message;
        answer.className = `answer ${a.ok ? 'ok' : 'bad'}`;
        if (a.ok && what === 'resume' && a.run) location.hash = `#/run/${encodeURIComponent(a.run)}`;
        schedule();
      });
    });
  };
  acting(stop, 'stop');
  acting(resume, 'resume');
  return () => {
    if (statusTimer !== undefined) clearTimeout(statusTimer);
    close();
  };
}
