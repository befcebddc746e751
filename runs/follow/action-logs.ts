/**
 * What each action of a run printed, for `ll-loop logs`: one record per finished action (state,
 * pass, attempt, exit code; sub-loops' actions too), from the run's event stream with each
 * `action_complete`'s output attached (runs/action-results.ts), and its output from the worker's
 * files when they are on this machine (an output cut to its tail: activities/capped-log.ts), else
 * the tail its result keeps in Temporal, saying where its output files are.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { ActionOutput, TimedEvent } from '../../fsm/run/events.js';
import { isKnownEvent } from '../../fsm/run/event-shape.js';

/** One finished action and what it wrote. */
export interface ActionLogRecord {
  /** The workflow the action ran in: the run, or one of its sub-loops. */
  workflow_id: string;
  /** Set for a sub-loop's action: the loop's name and its depth under the run. */
  subloop?: { loop: string; depth: number };
  state: string;
  pass: number;
  attempt?: number;
  /** When the action finished (the workflow's clock). */
  ts: string;
  exit_code: number;
  duration_ms: number;
  timed_out?: true;
  signal?: string;
  stdout: string;
  stderr: string;
  /**
   * `history`: the output as the action's result in Temporal keeps it (complete unless
   * `truncated`); `file`: read from the worker's output files on this machine (capped to their
   * first and last MiB); `file+history`: stdout from the file, stderr from history (a result of
   * 0.3.0 or earlier, whose one file mixed both streams, is read as stdout).
   */
  source: 'history' | 'file' | 'file+history';
  /** The tails in history were cut: the whole output is in `log_file`/`stderr_file`. */
  truncated?: true;
  log_file?: string;
  stderr_file?: string;
  /** Set when the files are not on this machine (another host, or deleted). */
  files_missing?: true;
  /**
   * A stream whose file cut bytes from its middle (it printed more than the file's first and last
   * MiB): how many bytes it printed and how many of them are gone (kept nowhere).
   */
  cut?: { stdout?: StreamCut; stderr?: StreamCut };
}

/** What a capped output file dropped: `cut_bytes` of the `total_bytes` the stream printed. */
export interface StreamCut {
  total_bytes: number;
  cut_bytes: number;
}

/** The note a capped file has where it cut (activities/capped-log.ts `cutNote`). */
const CUT_NOTE = /\n\[ll-loop: (\d+) bytes cut here; this log keeps the first \d+ and the last \d+ of (\d+) bytes\]\n/;

/** What the file text `text` says it cut, if it cut anything. */
function cutOf(text: string | undefined): StreamCut | undefined {
  const m = text === undefined ? null : CUT_NOTE.exec(text);
  return m ? { total_bytes: Number(m[2]), cut_bytes: Number(m[1]) } : undefined;
}

/** Where a lane (the run, or one sub-loop) is, to name its actions. */
interface Lane {
  loop: string;
  state: string;
  pass: number;
  attempt: number;
}

/** Reads a worker's output file as text (invalid UTF-8 as U+FFFD, NUL removed), or undefined. */
function readOutputFile(path: string | undefined): string | undefined {
  if (path === undefined || !existsSync(path)) return undefined;
  try {
    return readFileSync(path).toString('utf8').replace(/\0/g, '');
  } catch {
    return undefined;
  }
}

/** The output of one action: from its files when they are here and the history has only a tail. */
function outputOf(
  o: ActionOutput | undefined,
): Pick<
  ActionLogRecord,
  'stdout' | 'stderr' | 'source' | 'truncated' | 'log_file' | 'stderr_file' | 'files_missing' | 'cut'
> {
  const base = { stdout: o?.output ?? '', stderr: o?.stderr ?? '', source: 'history' as const };
  if (!o?.truncated) return base;
  const files = {
    truncated: true as const,
    ...(o.log_file ? { log_file: o.log_file } : {}),
    ...(o.stderr_file ? { stderr_file: o.stderr_file } : {}),
  };
  const stdout = readOutputFile(o.log_file);
  if (stdout === undefined) return { ...base, ...files, files_missing: true };
  const stderr = readOutputFile(o.stderr_file);
  const [outCut, errCut] = [cutOf(stdout), cutOf(stderr)];
  const cut = { ...(outCut ? { stdout: outCut } : {}), ...(errCut ? { stderr: errCut } : {}) };
  return {
    ...files,
    stdout,
    stderr: stderr ?? base.stderr,
    source: stderr === undefined ? 'file+history' : 'file',
    ...(outCut || errCut ? { cut } : {}),
  };
}

/**
 * Turns a run's event stream (with `action_output` attached, sub-loops' events marked) into
 * {@link ActionLogRecord}s, one per `action_complete`, handed to `onAction` as they finish.
 */
export function actionLogCollector(
  runId: string,
  onAction: (record: ActionLogRecord) => void,
): (event: TimedEvent) => void {
  const lanes = new Map<string, Lane>();
  return (event) => {
    // An event this release does not know holds no action of this release's shape; a known one
    // may lack fields an earlier release did not write (defaults as below).
    if (!isKnownEvent(event)) return;
    const id = event.subloop?.workflow_id ?? runId;
    let lane = lanes.get(id);
    if (!lane) {
      lane = { loop: '', state: '', pass: 1, attempt: 1 };
      lanes.set(id, lane);
    }
    switch (event.event) {
      case 'loop_start':
        lane.loop = event.loop ?? '';
        break;
      case 'state_enter':
        lane.state = event.state ?? '';
        lane.pass = event.iteration || 1;
        lane.attempt = 1;
        break;
      case 'action_start':
        lane.attempt = event.attempt ?? 1;
        break;
      case 'action_complete': {
        const record: ActionLogRecord = {
          workflow_id: id,
          ...(event.subloop ? { subloop: { loop: lane.loop, depth: event.subloop.depth } } : {}),
          state: event.state ?? lane.state,
          pass: lane.pass,
          ts: event.ts,
          ...(lane.attempt > 1 ? { attempt: lane.attempt } : {}),
          exit_code: event.exit_code ?? Number.NaN,
          duration_ms: event.duration_ms || 0,
          ...(event.timed_out ? { timed_out: true as const } : {}),
          ...(event.signal === undefined ? {} : { signal: event.signal }),
          ...outputOf(event.action_output),
        };
        onAction(record);
        break;
      }
      case 'loop_complete':
        if (event.subloop) lanes.delete(id);
        break;
      default:
        break;
    }
  };
}
