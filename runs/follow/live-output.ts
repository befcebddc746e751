/**
 * Reading a running action's output as it is written: the live file its worker keeps beside the
 * run's other files (activities/live-output.ts), tailed from its first byte. Only on the worker's
 * host: elsewhere the file is never found and the reader stays silent (the action's output then
 * comes with its `action_complete`, from Temporal).
 *
 * Invariants: text is handed on in order, decoded as UTF-8 across chunk boundaries (invalid bytes
 * as U+FFFD, NUL removed); nothing is handed on twice, except after the file started over at its
 * cap (then `onRestart` is called first). {@link LiveOutputReader.stop} reads what is left through
 * the open descriptor, so a reader that found the file misses nothing the action wrote.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { actionOutputDir, liveSuffixOf } from '../../worker/live-files.js';

/** How often the file is looked for and read. */
const LIVE_POLL_MS = 100;
const READ_CHUNK = 64 * 1024;

export interface LiveOutputTarget {
  /** The run's directory (its memo `cwd`), whose `.loops/.running/` holds the files. */
  cwd: string;
  /** The workflow the action runs in: the run, or one of its sub-loops. */
  instanceId: string;
  state: string;
}

export interface LiveOutputHandlers {
  onText: (text: string) => void;
  /** The file started over (its cap): what was handed on so far is not followed by its continuation. */
  onRestart?: () => void;
}

/** The live file of the newest action of `state` in the run's directory, if there is one. */
export function findLiveFile(target: LiveOutputTarget): string | undefined {
  const dir = actionOutputDir(target.cwd, target.instanceId);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  const suffix = liveSuffixOf(target.state);
  let best: { step: number; name: string } | undefined;
  for (const name of names) {
    if (!name.endsWith(suffix)) continue;
    const step = Number(/^(\d+)-/.exec(name)?.[1] ?? Number.NaN);
    if (Number.isFinite(step) && (best === undefined || step > best.step)) best = { step, name };
  }
  return best ? join(dir, best.name) : undefined;
}

/** Tails one action's live file until {@link stop}. */
export class LiveOutputReader {
  private fd: number | undefined;
  private offset = 0;
  private timer: NodeJS.Timeout | undefined;
  private decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  private stopped = false;

  constructor(
    private readonly target: LiveOutputTarget,
    private readonly handlers: LiveOutputHandlers,
  ) {
    this.poll();
  }

  /** Whether the file was found (so the action's output was, or is being, handed on). */
  get found(): boolean {
    return this.fd !== undefined || this.offset > 0;
  }

  /** Reads what is left, then closes. Idempotent. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.readNew(true);
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private poll(): void {
    if (this.stopped) return;
    try {
      if (this.fd === undefined) {
        const path = findLiveFile(this.target);
        if (path !== undefined) this.fd = openSync(path, 'r');
      }
      this.readNew(false);
    } catch {
      // The file went away between finding and opening it (the action ended): nothing to read.
    }
    this.timer = setTimeout(() => this.poll(), LIVE_POLL_MS);
    this.timer.unref();
  }

  private readNew(final: boolean): void {
    const fd = this.fd;
    if (fd === undefined) return;
    const size = fstatSync(fd).size;
    if (size < this.offset) {
      // Started over at its cap: read it again from its start.
      this.offset = 0;
      this.decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
      this.handlers.onRestart?.();
    }
    const buffer = Buffer.alloc(READ_CHUNK);
    while (this.offset < size) {
      const n = readSync(fd, buffer, 0, Math.min(READ_CHUNK, size - this.offset), this.offset);
      if (n <= 0) break;
      this.offset += n;
      this.emit(this.decoder.decode(buffer.subarray(0, n), { stream: true }));
    }
    if (final) this.emit(this.decoder.decode());
  }

  private emit(text: string): void {
    const clean = text.includes('\0') ? text.replace(/\0/g, '') : text;
    if (clean !== '') this.handlers.onText(clean);
  }
}
