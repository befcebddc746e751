/**
 * `.loops/.running/<instance-id>.events.jsonl` and `.state.json` (seed 001 "File Structure"),
 * written by the worker that runs the loop, so they exist whoever started the run.
 */
import {
  closeSync,
  createWriteStream,
  existsSync,
  fstatSync,
  openSync,
  readSync,
  renameSync,
  writeFileSync,
  type WriteStream,
} from 'node:fs';
import { join } from 'node:path';
import { ensureRuntimeDir } from '../loader/runtime-dir.js';
import type { RunStreamEvent } from '../fsm/run/events.js';
import type { RunStateFile, RunStateReport } from '../workflows/definitions.js';

export function runningDir(cwd: string): string {
  return join(cwd, '.loops', '.running');
}

/**
 * The name a run's files take from its id: the id with every `:` written as `-`. A scheduled run's
 * id is the schedule's action id plus the `-<RFC 3339 time>` Temporal appends
 * (`fix-lint-2026-11-24T03:00:00Z`), and a `:` in a file name breaks on Windows and macOS Finder
 * and in scp/rsync paths; so its files are `fix-lint-2026-11-24T03-00-00Z.*`.
 */
export function runFileStem(instanceId: string): string {
  return instanceId.replaceAll(':', '-');
}

/** `dir/<stem><suffix>`, or the file an earlier release named after the raw id when only that exists. */
function runFile(cwd: string, instanceId: string, suffix: string): string {
  const path = join(runningDir(cwd), `${runFileStem(instanceId)}${suffix}`);
  if (!instanceId.includes(':') || existsSync(path)) return path;
  const legacy = join(runningDir(cwd), `${instanceId}${suffix}`);
  return existsSync(legacy) ? legacy : path;
}

export function eventsPath(cwd: string, instanceId: string): string {
  return runFile(cwd, instanceId, '.events.jsonl');
}

export function statePath(cwd: string, instanceId: string): string {
  return runFile(cwd, instanceId, '.state.json');
}

/** The state file's content for the workflow's report: seed 001's fields, plus the whole snapshot. */
export function stateFileOf(report: RunStateReport): RunStateFile {
  const { loop, snapshot } = report;
  return {
    loop,
    current_state: snapshot.current,
    phase: snapshot.phase,
    iteration: snapshot.iteration,
    steps: snapshot.steps,
    captured: snapshot.captured,
    last_result: snapshot.result,
    started_at: snapshot.startedAt,
    result: snapshot.status === 'done' ? snapshot.outcome : null,
    seq: snapshot.seq,
    snapshot,
  };
}

/** How much of an existing events file is read to find the last sequence number written. */
const TAIL_BYTES = 64 * 1024;

/** The `seq` of the last complete event line of an events file (0 when there is none). */
export function lastSeqIn(path: string): number {
  return tailOf(path).lastSeq;
}

/** The last sequence number in an events file, and whether its last line is complete. */
function tailOf(path: string): { lastSeq: number; torn: boolean } {
  if (!existsSync(path)) return { lastSeq: 0, torn: false };
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const text = buffer.toString('utf8');
    const torn = text.length > 0 && !text.endsWith('\n');
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    for (const line of lines.reverse()) {
      try {
        const seq = (JSON.parse(line) as { seq?: unknown }).seq;
        if (typeof seq === 'number') return { lastSeq: seq, torn };
      } catch {
        // a cut first line of the tail, or a line torn by a crash: look further back
      }
    }
    return { lastSeq: 0, torn };
  } finally {
    closeSync(fd);
  }
}

/**
 * Appends one run's events and keeps its state file current. The file is one stream per run:
 * events are numbered by the core, and a number already written is never written again — not
 * after a worker crash, a re-run of flushed local activities, or a server restart (a new writer
 * learns the last number from the file's tail).
 */
export class RunFiles {
  private events: WriteStream | undefined;
  private lastSeq = 0;
  private lastStateSeq = -1;

  constructor(
    readonly cwd: string,
    readonly instanceId: string,
  ) {}

  /** Append `event` unless its number was written already; true when appended. */
  appendEvent(event: RunStreamEvent): boolean {
    if (!this.events) {
      ensureRuntimeDir(runningDir(this.cwd));
      const path = eventsPath(this.cwd, this.instanceId);
      const tail = tailOf(path);
      this.lastSeq = tail.lastSeq;
      this.events = createWriteStream(path, { flags: 'a' });
      // A line a crash cut short stays a line of its own: the next event starts on a fresh one.
      if (tail.torn) this.events.write('\n');
    }
    if (event.seq <= this.lastSeq) return false;
    this.lastSeq = event.seq;
    this.events.write(`${JSON.stringify(event)}\n`);
    return true;
  }

  /** Write-then-rename, so a reader never sees half a file. An older state never replaces a newer one. */
  writeState(state: RunStateFile): void {
    if (state.seq < this.lastStateSeq) return;
    this.lastStateSeq = state.seq;
    ensureRuntimeDir(runningDir(this.cwd));
    const target = statePath(this.cwd, this.instanceId);
    const temporary = `${target}.tmp`;
    writeFileSync(
      temporary,
      `${JSON.stringify({ instance_id: this.instanceId, ...state, updated_at: new Date().toISOString() }, null, 2)}\n`,
    );
    renameSync(temporary, target);
  }

  /** Flush and close the events file. */
  close(): Promise<void> {
    const stream = this.events;
    this.events = undefined;
    return stream ? new Promise((resolve) => stream.end(resolve)) : Promise.resolve();
  }
}
