/**
 * The progress display of seed 001 ("CLI Progress Display"):
 *
 *   [1/20] check → mypy src/
 *          ✗ no (exit 1)
 *          → fix
 */
import { formatDuration, oneLine } from '../../fsm/format.js';
import type { ExecutionResult } from '../../fsm/types.js';
import type { TimedEvent } from '../../worker/event-hub.js';
import type { Reporter } from './reporter.js';
import type { Style } from './style.js';

const INDENT = '       ';

function verdictLine(event: TimedEvent, style: Style, exitCode: number | undefined): string {
  const verdict = String(event.verdict);
  const details = (event.details ?? {}) as Record<string, unknown>;
  const extra: string[] = [];
  if (typeof event.confidence === 'number') extra.push(`confidence: ${event.confidence}`);
  else if (event.type === 'exit_code' && exitCode !== undefined) extra.push(`exit ${exitCode}`);
  else if ('value' in details && details.value !== undefined) extra.push(`value: ${JSON.stringify(details.value)}`);
  else if ('current' in details) extra.push(`current: ${JSON.stringify(details.current)}`);
  if (typeof details.error === 'string') extra.push(oneLine(details.error, 160));
  const suffix = extra.length ? ` (${extra.join(', ')})` : '';
  if (verdict === 'yes' || verdict === 'target' || verdict === 'success') return style.green(`✓ ${verdict}${suffix}`);
  if (verdict === 'error') return style.yellow(`⚠ error${suffix}`);
  if (verdict === 'no' || verdict === 'failure' || verdict === 'stall') return style.red(`✗ ${verdict}${suffix}`);
  return style.cyan(`• ${verdict}${suffix}`);
}

function endLine(result: ExecutionResult, style: Style): string {
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
    case 'cancelled':
      return style.yellow(`Loop stopped in state ${result.final_state} (${passes})`);
    default:
      return style.red(`Loop failed in state ${result.final_state} (${passes})\n${INDENT}error: ${result.error ?? 'unknown error'}`);
  }
}

export function createHumanReporter(write: (text: string) => void, style: Style, maxIterations: number): Reporter {
  let iteration = 1;
  let state = '';
  let headerShown = false;
  let exitCode: number | undefined;
  const header = (action?: string) => {
    headerShown = true;
    write(`${style.dim(`[${iteration}/${maxIterations}]`)} ${style.bold(state)}${action ? ` → ${oneLine(action, 100)}` : ''}\n`);
  };
  return {
    onStart(info) {
      write(style.dim(`run ${info.instanceId}${info.uiUrl ? ` · ${info.uiUrl}` : ''}\n`));
    },
    onEvent(event) {
      switch (event.event) {
        case 'state_enter':
          iteration = Number(event.iteration);
          state = String(event.state);
          headerShown = false;
          exitCode = undefined;
          break;
        case 'action_start':
          if (!headerShown || event.attempt === undefined) header(String(event.action));
          break;
        case 'action_retry': {
          const why = event.verdict !== undefined ? `verdict ${String(event.verdict)}` : event.error !== undefined ? oneLine(String(event.error), 120) : `exit ${String(event.exit_code)}`;
          const wait = Number(event.delay_ms) > 0 ? ` in ${formatDuration(Number(event.delay_ms))}` : '';
          write(`${INDENT}${style.yellow(`↻ attempt ${String(event.attempt)}/${String(event.attempts)} failed (${why}); retrying${wait}`)}\n`);
          break;
        }
        case 'action_complete':
          exitCode = Number(event.exit_code);
          if (event.timed_out) write(`${INDENT}${style.yellow(`⏱ timed out after ${formatDuration(Number(event.duration_ms))}`)}\n`);
          break;
        case 'evaluate':
          if (!headerShown) header();
          write(`${INDENT}${verdictLine(event, style, exitCode)}\n`);
          break;
        case 'action_error':
          if (!headerShown) header();
          write(`${INDENT}${style.yellow(`⚠ ${oneLine(String(event.error), 200)}`)}\n`);
          break;
        case 'route':
          if (!headerShown) header();
          write(`${INDENT}→ ${event.to}\n`);
          break;
        case 'maintain_restart':
          write(style.dim(`maintain: cycle ${event.cycle} complete, restarting\n`));
          break;
        default:
          break;
      }
    },
    onResult(result) {
      write(`\n${endLine(result, style)}\n`);
    },
  };
}
