/**
 * Where the embedded dev server lives for a project: data under `.loops/.temporal/`, gRPC on
 * 7233 and the Web UI on 8233 (Temporal's usual ports), each overridable by environment.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { ensureRuntimeDir } from '../loader/runtime-dir.js';
import { dirname, join, resolve } from 'node:path';
import { foreignServerNote, type ServerHome } from './server-home.js';

/**
 * Where a project remembers the foreign server it was told about: in `.loops/.temporal/`, a
 * runtime directory ll-loop ignores for git (loader/runtime-dir.ts), never beside the loop files.
 */
function serverNoteFile(cwd: string): string {
  return join(cwd, '.loops', '.temporal', 'server-note.json');
}

/**
 * Tell the user, once per project and server, that the server on the port belongs elsewhere: one
 * line on stderr the first time a command of this project meets it, then silence until another
 * server (another port, another home) answers. A project without `.loops/` remembers nothing, so
 * it is told every time. A worker started in the background does not tell (nobody reads its log
 * then; the command that started it has told already).
 */
export function noteForeignServer(cwd: string, env: NodeJS.ProcessEnv, write: (text: string) => void) {
  return (found: { address: string; home: ServerHome | undefined; assumedUiUrl: string }): void => {
    if (env.LL_WORKER_STARTED_BY) return;
    const key = `${found.address} ${found.home?.dataDir ?? '(unknown)'}`;
    const file = serverNoteFile(cwd);
    try {
      if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { told?: string }).told === key) return;
    } catch {
      // An unreadable memory: tell again, and write it anew.
    }
    write(foreignServerNote(found.address, found.home, found.assumedUiUrl));
    try {
      if (existsSync(join(cwd, '.loops'))) {
        ensureRuntimeDir(dirname(file));
        writeFileSync(file, `${JSON.stringify({ told: key })}\n`);
      }
    } catch {
      // Not remembered: the note comes again next time, which is the lesser harm.
    }
  };
}

export function embeddedServerOptions(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): { dataDir: string; port: number; uiPort: number; onForeignServer: ReturnType<typeof noteForeignServer> } {
  return {
    dataDir: resolve(env.LL_TEMPORAL_DATA_DIR ?? join(cwd, '.loops', '.temporal')),
    port: Number(env.LL_TEMPORAL_PORT ?? 7233),
    uiPort: Number(env.LL_TEMPORAL_UI_PORT ?? 8233),
    // The commands' own stderr: this is reached from deep inside connecting, where no sink is passed.
    onForeignServer: noteForeignServer(cwd, env, (text) => void process.stderr.write(text)),
  };
}
