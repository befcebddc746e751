/**
 * `.loops/.running/<instance-id>.events.jsonl` and `.state.json` (seed 001 "File Structure"),
 * written by the worker that runs the loop, so they exist whoever started the run.
 */
import { createWriteStream, mkdirSync, renameSync, writeFileSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { LoopEvent } from '../fsm/types.js';
import type { RunStateFile } from '../workflows/definitions.js';

export function runningDir(cwd: string): string {
  return join(cwd, '.loops', '.running');
}

export function eventsPath(cwd: string, instanceId: string): string {
  return join(runningDir(cwd), `${instanceId}.events.jsonl`);
}

export function statePath(cwd: string, instanceId: string): string {
  return join(runningDir(cwd), `${instanceId}.state.json`);
}

/** Appends one run's events and keeps its state file current. */
export class RunFiles {
  private events: WriteStream | undefined;

  constructor(
    readonly cwd: string,
    readonly instanceId: string,
  ) {}

  appendEvent(event: LoopEvent & { ts: string }): void {
    if (!this.events) {
      mkdirSync(runningDir(this.cwd), { recursive: true });
      this.events = createWriteStream(eventsPath(this.cwd, this.instanceId), { flags: 'a' });
    }
    this.events.write(`${JSON.stringify(event)}\n`);
  }

  /** Write-then-rename, so a reader never sees half a file. */
  writeState(state: RunStateFile): void {
    mkdirSync(runningDir(this.cwd), { recursive: true });
    const target = statePath(this.cwd, this.instanceId);
    const temporary = `${target}.tmp`;
    writeFileSync(temporary, `${JSON.stringify({ instance_id: this.instanceId, ...state, updated_at: new Date().toISOString() }, null, 2)}\n`);
    renameSync(temporary, target);
  }

  /** Flush and close the events file. */
  close(): Promise<void> {
    const stream = this.events;
    this.events = undefined;
    return stream ? new Promise((resolve) => stream.end(resolve)) : Promise.resolve();
  }
}
