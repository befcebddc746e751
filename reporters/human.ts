/**
 * The progress display of seed 001 ("CLI Progress Display"):
 *
 *   [1/20] check → mypy src/
 *          ✗ no (exit 1)
 *          → fix
 */
import { formatDuration, oneLine } from '../fsm/format.js';
import type { ExecutionResult } from '../fsm/types.js';
import { formatIn, spendLine } from '../fsm/run/budget.js';
import type { ActionOutput, ReadEvent, TimedEvent } from '../fsm/run/events.js';
import { isKnownEvent } from '../fsm/run/event-shape.js';
import { plainEvent } from './plain-event.js';
import type { Reporter } from './reporter.js';
import { safeText } from './safe-text.js';
import { checkLine } from './check-lines.js';
import type { Style } from './style.js';
import { localTime } from './table.js';

const INDENT = '       ';

/**
 * How much the display shows: `quiet` only the end line; `normal` the progress lines, and the last
 * {@link FAILURE_TAIL_LINES} lines of an action whose verdict is a failure (why a check failed, at
 * once); `verbose` the last {@link VERBOSE_TAIL_LINES} lines of every action.
 */
export type Detail = 'quiet' | 'normal' | 'verbose';

/** A fan-out's succeeded items listed without `--verbose` (every item that did not succeed is). */
const LISTED_SUCCEEDED = 10;
/** Lines of each stream shown under a failing action without `--verbose`. */
const FAILURE_TAIL_LINES = 5;
/** Lines of each stream shown under every action with `--verbose`. */
const VERBOSE_TAIL_LINES = 10;
/** Longer output lines are cut (a 64 KiB line without a newline is one line). */
const MAX_LINE_CHARS = 400;
/** Verdicts after which the action's output explains what went wrong. */
const FAILING_VERDICTS = new Set(['no', 'error', 'failure']);

/** What the progress display shows of the output the follower attached to `action_complete`. */
type AttachedOutput = Pick<ActionOutput, 'output' | 'stderr'>;

function attachedOutput(event: TimedEvent): AttachedOutput | undefined {
  const o = event.action_output as Partial<AttachedOutput> | undefined;
  return o && typeof o.output === 'string' && typeof o.stderr === 'string'
    ? { output: o.output, stderr: o.stderr }
    : undefined;
}

/** The last `n` lines of `text` (without the final newline), and how many lines came before them. */
function lastLines(text: string, n: number): { lines: string[]; more: number } {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  if (body === '') return { lines: [], more: 0 };
  const all = body.split('\n');
  const lines = all.slice(-n).map((l) => (l.length > MAX_LINE_CHARS ? `${l.slice(0, MAX_LINE_CHARS - 1)}…` : l));
  return { lines, more: all.length - lines.length };
}

function verdictLine(
  event: Extract<ReadEvent, { event: 'evaluate' }>,
  style: Style,
  exitCode: number | undefined,
): string {
  const verdict = event.verdict ?? '?';
  const details = event.details ?? {};
  const extra: string[] = [];
  if (typeof event.confidence === 'number') extra.push(`confidence: ${event.confidence}`);
  else if (event.type === 'exit_code' && exitCode !== undefined) extra.push(`exit ${exitCode}`);
  else if ('value' in details && details.value !== undefined)
    extra.push(`value: ${safeText(JSON.stringify(details.value) ?? '')}`);
  else if ('current' in details) extra.push(`current: ${safeText(JSON.stringify(details.current) ?? '')}`);
  if (typeof details.error === 'string') extra.push(safeText(oneLine(details.error, 160)));
  const suffix = extra.length ? ` (${extra.join(', ')})` : '';
  if (verdict === 'yes' || verdict === 'target' || verdict === 'success') return style.green(`✓ ${verdict}${suffix}`);
  if (verdict === 'error') return style.yellow(`⚠ error${suffix}`);
  if (verdict === 'no' || verdict === 'failure' || verdict === 'stall') return style.red(`✗ ${verdict}${suffix}`);
  return style.cyan(`• ${verdict}${suffix}`);
}

function endLine(result: ExecutionResult, style: Style): string {
  // What agent calls spent, when any reported usage (fsm/run/budget.ts).
  const spent =
    result.spent === undefined ? '' : `\n${INDENT}${style.dim(`spent: ${spendLine(result.spent, undefined) ?? '$0'}`)}`;
  return endLineOf(result, style) + spent;
}

function endLineOf(result: ExecutionResult, style: Style): string {
  const passes = `${result.iterations} iteration${result.iterations === 1 ? '' : 's'}, ${formatDuration(result.duration_ms)}`;
  switch (result.terminated_by) {
    case 'terminal':
      return result.failure
        ? style.red(`Loop ended in failure state: ${result.final_state} (${passes})`)
        : style.green(`Loop completed: ${result.final_state} (${passes})`);
    case 'max_iterations':
    case 'max_steps':
      return style.yellow(`Loop stopped: ${result.terminated_by} reached in state ${result.final_state} (${passes})`);
    case 'timeout':
      return style.yellow(`Loop timed out in state ${result.final_state} (${passes})`);
    case 'budget':
      return style.yellow(
        `Loop stopped: ${safeText(result.error ?? `budget spent in state ${result.final_state}`)} (${passes})`,
      );
    case 'cancelled':
      if (result.stopped_waiting_for)
        return style.yellow(
          `Loop stopped while waiting for its scope${result.stopped_waiting_for.length === 1 ? '' : 's'} ${safeText(result.stopped_waiting_for.join(', '))}, before its first state (${formatDuration(result.duration_ms)})`,
        );
      return style.yellow(
        `Loop stopped in state ${result.final_state}${result.stopped_by === 'loop_stop' ? ` by ${safeText(oneLine(result.error ?? 'LOOP_STOP:', 160))}` : ''} (${passes})`,
      );
    case 'handoff':
      return style.yellow(
        `Loop handed off in state ${result.final_state} (${passes}); ll-loop resume continues it\n${INDENT}${safeText(oneLine(result.error ?? '', 200))}`,
      );
    default:
      return style.red(
        `Loop failed in state ${result.final_state} (${passes})\n${INDENT}error: ${safeText(result.error ?? 'unknown error')}`,
      );
  }
}

/** The run ended in a terminal state marked `failure: true`. */
function failureTerminal(event: Extract<ReadEvent, { event: 'loop_complete' }>): boolean {
  return event.terminated_by === 'terminal' && event.failure === true;
}

/**
 * `--quiet`: the end line, and under it what a failure terminal's action printed (why the run
 * failed), as the progress display shows it.
 */
function quietReporter(write: (text: string) => void, style: Style): Reporter {
  let last: AttachedOutput | undefined;
  let why: AttachedOutput | undefined;
  return {
    onEvent: (event) => {
      if (event.subloop || !isKnownEvent(event)) return;
      // A terminal state's action is judged by nothing: the last output no verdict took is its.
      if (event.event === 'action_complete') last = attachedOutput(event);
      else if (event.event === 'evaluate' || event.event === 'state_enter') last = undefined;
      else if (event.event === 'loop_complete') why = failureTerminal(event) ? last : undefined;
    },
    onResult: (result) => {
      write(`${endLine(result, style)}\n`);
      for (const [mark, text] of [
        ['out│', why?.output ?? ''],
        ['err│', why?.stderr ?? ''],
      ] as const)
        for (const l of lastLines(text, FAILURE_TAIL_LINES).lines)
          write(`${INDENT}${style.dim(mark)} ${safeText(l)}\n`);
    },
  };
}

/** One run's progress lines (the run itself, or a sub-loop of it, indented by `prefix`). */
function createLane(
  write: (text: string) => void,
  style: Style,
  maxIterations: number,
  prefix: string,
  detail: Detail,
  /** The run this lane shows, once known (the run's own lane; a sub-loop's lane has none). */
  runId: () => string | undefined = () => undefined,
): (event: TimedEvent) => void {
  let iteration = 1;
  let limit = maxIterations;
  let state = '';
  let headerShown = false;
  let exitCode: number | undefined;
  /** The last action's output, until its verdict says whether a failure shows it. */
  let pending: AttachedOutput | undefined;
  /** The state whose action printed `pending`. */
  let pendingOf = '';
  let itemsShown = 0; // succeeded items of the fan-out under way seen (past LISTED_SUCCEEDED, counted)
  const line = (text: string) => write(`${prefix}${text}\n`);
  /** The last lines of each stream, marked `out│`/`err│`, made safe for the terminal. */
  const showOutput = (o: AttachedOutput, n: number) => {
    for (const [mark, text] of [
      ['out│', o.output],
      ['err│', o.stderr],
    ] as const) {
      const { lines, more } = lastLines(text, n);
      if (more > 0) line(`${INDENT}${style.dim(`${mark} … ${more} more line${more === 1 ? '' : 's'} (ll-loop logs)`)}`);
      for (const l of lines) line(`${INDENT}${style.dim(mark)} ${safeText(l)}`);
    }
  };
  // A lane joined mid-run (a resumed parent whose child is already running) has seen neither
  // loop_start nor state_enter: it shows what the event itself says.
  const header = (event: ReadEvent, action?: string) => {
    headerShown = true;
    if (!state)
      state = ('state' in event ? event.state : undefined) ?? ('from' in event ? event.from : undefined) ?? '?';
    const counter = limit > 0 ? `[${iteration}/${limit}]` : `[${iteration}]`;
    line(`${style.dim(counter)} ${style.bold(safeText(state))}${action ? ` → ${safeText(oneLine(action, 100))}` : ''}`);
  };
  return (event) => {
    // An event this release does not know (an earlier release's, or a later one's): shown as it is.
    // A known one may lack a field an earlier release did not write: `?` stands for it.
    if (!isKnownEvent(event)) return line(`${INDENT}${style.dim(safeText(plainEvent(event)))}`);
    switch (event.event) {
      case 'loop_start':
        if (event.max_iterations !== undefined) limit = event.max_iterations;
        break;
      case 'state_enter':
        iteration = event.iteration ?? iteration;
        state = event.state ?? '';
        headerShown = false;
        exitCode = undefined;
        break;
      case 'action_start':
        if (!headerShown || event.attempt === undefined) header(event, event.action);
        break;
      case 'subloop_start':
        header(event, `loop ${event.loop}${event.passthrough ? ' (passthrough)' : ''}`);
        break;
      case 'action_retry': {
        const why =
          event.verdict !== undefined
            ? `verdict ${safeText(event.verdict)}`
            : event.error !== undefined
              ? safeText(oneLine(event.error, 120))
              : `exit ${String(event.exit_code)}`;
        const delay = event.delay_ms ?? 0;
        const wait = delay > 0 ? ` in ${formatDuration(delay)}` : '';
        // A failed attempt is a failing check too: why it failed, before it is retried.
        if (pending) showOutput(pending, FAILURE_TAIL_LINES);
        pending = undefined;
        line(
          `${INDENT}${style.yellow(`↻ attempt ${event.attempt ?? '?'}/${event.attempts ?? '?'} failed (${why}); retrying${wait}`)}`,
        );
        break;
      }
      case 'action_complete':
        exitCode = event.exit_code;
        if (event.timed_out && event.timeout_kind === 'idle')
          line(
            `${INDENT}${style.yellow(`⏱ killed after ${formatDuration(event.duration_ms ?? 0)}: no output for its idle_timeout`)}`,
          );
        else if (event.timed_out)
          line(`${INDENT}${style.yellow(`⏱ timed out after ${formatDuration(event.duration_ms ?? 0)}`)}`);
        pending = attachedOutput(event);
        pendingOf = state;
        if (detail === 'verbose' && pending) {
          showOutput(pending, VERBOSE_TAIL_LINES);
          pending = undefined;
        }
        break;
      case 'subloop_complete':
        line(
          `${INDENT}${style.dim(safeText(`loop ${event.loop ?? '?'} ended ${event.terminated_by ?? '?'} in ${event.final_state ?? '?'}`))}`,
        );
        break;
      case 'evaluate':
        if (!headerShown) header(event);
        // Why a check failed, without a second command: its last lines, before its verdict.
        if (pending && FAILING_VERDICTS.has(event.verdict ?? '')) showOutput(pending, FAILURE_TAIL_LINES);
        pending = undefined;
        line(`${INDENT}${verdictLine(event, style, exitCode)}`);
        break;
      case 'llm_reask':
      case 'output_reask': {
        if (!headerShown) header(event);
        const errors = event.errors ?? [];
        line(
          `${INDENT}${style.yellow(`↻ ${event.event === 'llm_reask' ? 'answer' : 'output'} missed its schema (${safeText(oneLine(errors[0] ?? '?', 120))}); asking again (${event.ask ?? '?'}/${event.asks ?? '?'})`)}`,
        );
        break;
      }
      case 'rate_limited': {
        if (!headerShown) header(event);
        // The limited call printed the message, not work: nothing of it is shown as output.
        pending = undefined;
        const resumes = new Date(event.resumes_at ?? Number.NaN);
        const what = event.source === 'llm' ? 'evaluating again' : 'running it again';
        line(
          `${INDENT}${style.yellow(`⏸ ${safeText((event.kind ?? '?').replace('_', ' '))}: ${safeText(oneLine(event.message ?? '', 160))}; ${what} at ${localTime(resumes)} (in ${formatDuration(event.wait_ms ?? 0)})`)}`,
        );
        break;
      }
      case 'handoff': {
        if (!headerShown) header(event);
        pending = undefined;
        const mode = event.mode;
        const then =
          mode === 'pause'
            ? 'paused; continue it with ll-loop resume'
            : mode === 'spawn'
              ? `continuing in a fresh session (${String(event.continuation)})`
              : 'ending the run';
        line(`${INDENT}${style.yellow(`⇄ handed off: ${safeText(oneLine(event.payload ?? '', 160))}; ${then}`)}`);
        break;
      }
      case 'handoff_resumed':
        line(`${INDENT}${style.cyan(`▶ continued after ${formatDuration(event.waited_ms ?? 0)}`)}`);
        break;
      case 'human_wait': {
        if (!headerShown) header(event);
        const until = event.deadline === undefined ? '' : ` (deadline ${localTime(new Date(event.deadline))})`;
        line(
          `${INDENT}${style.yellow(`? waiting for a person${until}: ${safeText(oneLine(event.prompt ?? '', 160))}`)}`,
        );
        const run = runId();
        line(
          `${INDENT}${style.dim(`answer with ll-loop answer ${run === undefined ? '<run>' : safeText(run)} …; ll-loop inbox lists what waits`)}`,
        );
        break;
      }
      case 'human_answer':
        line(
          `${INDENT}${style.cyan(`▶ answered ${safeText(event.verdict ?? '?')} by ${safeText(event.by ?? '?')} after ${formatDuration(event.latency_ms ?? 0)}`)}`,
        );
        break;
      case 'human_timeout':
        line(`${INDENT}${style.yellow(`⏱ nobody answered within ${formatDuration(event.waited_ms ?? 0)}`)}`);
        break;
      case 'loop_stop':
        if (!headerShown) header(event);
        line(
          `${INDENT}${style.yellow(`■ LOOP_STOP${event.message ? `: ${safeText(oneLine(event.message, 160))}` : ''}; the run stops after routing`)}`,
        );
        break;
      case 'fatal_error':
        if (!headerShown) header(event);
        if (pending) showOutput(pending, FAILURE_TAIL_LINES);
        pending = undefined;
        line(`${INDENT}${style.red(`✗ FATAL_ERROR: ${safeText(oneLine(event.message ?? '', 200))}`)}`);
        break;
      case 'tamper_guard':
      case 'prepatch_check':
        if (!headerShown) header(event);
        line(`${INDENT}${checkLine(event, style)}`);
        break;
      case 'action_error':
        if (!headerShown) header(event);
        line(`${INDENT}${style.yellow(`⚠ ${safeText(oneLine(event.error ?? '', 200))}`)}`);
        break;
      case 'budget_spent': {
        if (!headerShown) header(event);
        const limit = event.limit ?? '?';
        const spent = event.limit === undefined || event.spent === undefined ? '?' : formatIn(event.limit, event.spent);
        const max = event.max ?? '?';
        const why =
          event.needed === undefined
            ? `${spent} of ${limit} ${max}`
            : `the next call may use ${event.needed} tokens; ${spent} of ${limit} ${max} spent`;
        line(
          `${INDENT}${style.yellow(`⚠ ${event.scope === 'state' ? "state's " : ''}budget spent: ${safeText(why)}`)}`,
        );
        break;
      }
      case 'route':
        if (!headerShown) header(event);
        line(`${INDENT}→ ${safeText(event.to ?? '?')}`);
        break;
      case 'loop_complete':
        // A failure terminal's action says why the run failed (the catalog's `echo` messages).
        if (pending && failureTerminal(event) && pendingOf === event.final_state)
          showOutput(pending, FAILURE_TAIL_LINES);
        pending = undefined;
        break;
      case 'maintain_restart':
        line(style.dim(`maintain: cycle ${event.cycle} complete, restarting`));
        break;
      case 'paused':
        line(`${INDENT}${style.yellow(`⏸ paused by ${safeText(event.by ?? '?')}; it holds before its next state`)}`);
        break;
      case 'unpaused':
        line(
          `${INDENT}${style.cyan(`▶ unpaused by ${safeText(event.by ?? '?')} after ${formatDuration(event.paused_ms ?? 0)}`)}`,
        );
        break;
      case 'steered':
        line(
          `${INDENT}${style.yellow(`↪ steered to ${safeText(event.to ?? '?')} instead of ${safeText(event.replaced ?? '?')} by ${safeText(event.by ?? '?')}${event.note ? `: ${safeText(oneLine(event.note, 160))}` : ''}`)}`,
        );
        break;
      case 'loop_fork':
        line(style.dim(`rerun of ${safeText(event.forked_from ?? '?')} from state ${safeText(event.state ?? '?')}`));
        break;
      case 'fanout_start':
        itemsShown = 0;
        header(
          event,
          `${event.count ?? '?'} item${event.count === 1 ? '' : 's'}${event.loop === undefined ? '' : ` of loop ${event.loop}`}, ${event.max_workers ?? '?'} at once`,
        );
        break;
      case 'item_done': {
        const ok = event.outcome === 'yes';
        if (ok && detail !== 'verbose' && ++itemsShown > LISTED_SUCCEEDED) break;
        const text = `item ${event.index ?? '?'}: ${event.outcome ?? '?'}${event.error === undefined ? '' : ` (${oneLine(event.error, 100)})`}`;
        line(`${INDENT}${ok ? style.dim(safeText(text)) : style.yellow(safeText(text))}`);
        break;
      }
      case 'fanout_join': {
        const more = detail === 'verbose' ? 0 : itemsShown - LISTED_SUCCEEDED;
        const unlisted = more > 0 ? ` (${more} succeeded items not listed: --verbose lists every item)` : '';
        const counts = `${event.succeeded ?? '?'}/${event.count ?? '?'} succeeded, ${event.failed ?? '?'} failed`;
        line(`${INDENT}${style.dim(`joined: ${counts}${unlisted}`)}`);
        break;
      }
      case 'host_change':
        line(
          style.dim(
            event.from_host === undefined
              ? `checkout: ${event.dir ?? '?'} on ${event.to_host ?? '?'}`
              : `checkout moved from ${event.from_host} to ${event.to_host ?? '?'} (${event.reason ?? '?'}): ${event.dir ?? '?'}`,
          ),
        );
        break;
      default:
        break;
    }
  };
}

/**
 * The run's lines, with each sub-loop's lines (events the hub forwards with `subloop` set)
 * indented under the parent state that runs it.
 */
export function createHumanReporter(
  write: (text: string) => void,
  style: Style,
  maxIterations: number,
  detail: Detail = 'normal',
): Reporter {
  if (detail === 'quiet') return quietReporter(write, style);
  let instanceId: string | undefined;
  const main = createLane(write, style, maxIterations, '', detail, () => instanceId);
  const children = new Map<string, (event: TimedEvent) => void>();
  return {
    onStart(info) {
      instanceId = info.instanceId;
      write(style.dim(`run ${info.instanceId}${info.uiUrl ? ` · ${info.uiUrl}` : ''}\n`));
    },
    onEvent(event) {
      if (!event.subloop) return main(event);
      const { workflow_id: id, depth } = event.subloop;
      let lane = children.get(id);
      if (!lane) {
        lane = createLane(write, style, 0, INDENT.repeat(depth), detail);
        children.set(id, lane);
      }
      lane(event);
      if (event.event === 'loop_complete') children.delete(id);
    },
    onResult(result) {
      write(`\n${endLine(result, style)}\n`);
    },
  };
}
