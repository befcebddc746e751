/**
 * The ids of a loop's runs this checkout's files name, for a run the visibility listing does not
 * show yet. Temporal's listing is updated in the background, a moment (under load, seconds) after
 * a run starts; `ll-loop status <loop>` right after `run` returned would miss that run and name
 * an older one, or none. The worker that runs a loop writes `.loops/.running/<id>.*` as the run
 * starts (host/run-files.ts): the ids of files written lately are asked of the server directly.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runningDir } from '../../host/run-files.js';

/** Files older than this are of runs the listing has long shown (it lags by seconds). */
const RECENT_MS = 120_000;
/** At most this many ids are asked for, newest first. */
const MOST = 8;

/**
 * Ids of runs of loop `name` whose files in `root`'s `.loops/.running/` were written after
 * `since` (ms) and within the last {@link RECENT_MS}, newest first, leaving out `known` ids.
 */
export function recentLocalRunIds(root: string, name: string, since: number, known: ReadonlySet<string>): string[] {
  let files: string[];
  try {
    files = readdirSync(runningDir(root));
  } catch {
    return [];
  }
  // `<loop>-<YYYYMMDDTHHMMSS>` and `-2`, `-3`…, the loop name made safe (runs/start/instance-id.ts).
  const base = `${name.replace(/[^A-Za-z0-9._-]+/g, '-')}-`.replace(/\./g, '\\.');
  const pattern = new RegExp(`^${base}\\d{8}T\\d{6}(?:-\\d+)?$`);
  const after = Math.max(since, Date.now() - RECENT_MS);
  const newest = new Map<string, number>();
  for (const file of files) {
    const id = /^(.*)\.(?:events\.jsonl|state\.json)$/.exec(file)?.[1];
    if (id === undefined || known.has(id) || !pattern.test(id)) continue;
    let mtime: number;
    try {
      mtime = statSync(join(runningDir(root), file)).mtimeMs;
    } catch {
      continue;
    }
    if (mtime > after && mtime > (newest.get(id) ?? 0)) newest.set(id, mtime);
  }
  return [...newest.entries()]
    .sort((x, y) => y[1] - x[1])
    .slice(0, MOST)
    .map(([id]) => id);
}
