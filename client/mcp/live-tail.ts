/**
 * The end of a run's running action's output, for its MCP resource: the live file the worker
 * keeps on this machine (activities/live-output.ts; a prompt action's shows the agent's text and
 * tool calls), its last {@link TAIL_BYTES} bytes from a line's start. Only for a run started in
 * the server's checkout and served on this machine; otherwise, or between actions, there is none.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { findLiveFile } from '../../runs/follow/live-output.js';
import type { StatusReport } from '../../runs/find/status-report.js';

/** At most this much of the output's end is included. */
const TAIL_BYTES = 4 * 1024;

/** What the resource adds: the state whose action is running, and its output's end. */
export interface LiveOutputTail {
  state: string;
  text: string;
  /** The output was longer than the text. */
  truncated: boolean;
}

/** The running action's output's end, or undefined when it has none (yet) on this machine. */
export function liveOutputTail(cwd: string, report: StatusReport): LiveOutputTail | undefined {
  const state = report.live?.state ?? report.in_action?.state;
  if (!report.open || state === undefined) return undefined;
  const path = findLiveFile({ cwd, instanceId: report.id, state });
  if (path === undefined) return undefined;
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    const from = Math.max(0, size - TAIL_BYTES);
    const buffer = Buffer.alloc(size - from);
    const n = readSync(fd, buffer, 0, buffer.length, from);
    let text = buffer.subarray(0, n).toString('utf8');
    // Cut at a line's start, so no half line (or half character) opens it.
    if (from > 0) text = text.slice(text.indexOf('\n') + 1);
    return { state, text, truncated: from > 0 };
  } catch {
    // The action ended between finding the file and reading it.
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
