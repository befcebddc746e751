/**
 * Process groups of running actions, and who kills them when the worker process goes away.
 *
 * Every action runs in a process group of its own (activities/process.ts). Two guards end those
 * groups with the worker instead of leaving them as orphans that a resumed run would overlap:
 * - a normal exit of the worker process (the CLI ends, the server is gone): an `exit` handler;
 * - a SIGKILL or crash of the worker, which no handler sees: a small watchdog process (bash, one
 *   per worker process) that is told each group as it starts and ends over a pipe. When the worker
 *   dies the kernel closes the pipe, the watchdog reads end-of-file, and it kills the groups still
 *   on its list (SIGTERM, then SIGKILL after a grace). It runs in a session of its own, so a
 *   Ctrl-C at the terminal does not take it down before it has done its job.
 * An action runs only once its group is on the list (spawn-gate.ts), so no kill can fall between
 * its start and its registration.
 * One long-lived watchdog rather than one per action: a spawn costs milliseconds of the worker's
 * main thread, and quick actions are the hot path.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';

/** Seconds between the watchdog's SIGTERM and SIGKILL (matches KILL_GRACE_MS of process.ts). */
const GRACE_S = 2;

const WATCHDOG_SCRIPT = `
trap '' INT HUP TERM
groups=()  # indexed by pid (sparse): no associative arrays, so bash 3.2 (macOS) runs it too
while IFS=' ' read -r op pid; do
  case "$op" in
    +) groups[$pid]=1 ;;
    -) unset "groups[$pid]" ;;
  esac
done
[ \${#groups[@]} -eq 0 ] && exit 0
for pid in "\${!groups[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
sleep ${GRACE_S}
for pid in "\${!groups[@]}"; do kill -KILL -- "-$pid" 2>/dev/null; done
`;

const liveGroups = new Set<number>();
let watchdog: { child: ChildProcess; stdin: Writable } | undefined;
let watchdogFailed = false;

/** The watchdog, started on first use; undefined when it cannot run (then only the exit handler guards). */
function ensureWatchdog(): Writable | undefined {
  if (watchdog && watchdog.child.exitCode === null && watchdog.child.signalCode === null) return watchdog.stdin;
  if (watchdogFailed) return undefined;
  try {
    const child = spawn('bash', ['-c', WATCHDOG_SCRIPT], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    const stdin = child.stdin!;
    // Neither the watchdog nor its pipe may keep the worker process alive.
    child.unref();
    (stdin as Writable & { unref?: () => void }).unref?.();
    stdin.on('error', () => undefined);
    child.on('error', () => {
      watchdogFailed = true;
    });
    watchdog = { child, stdin };
    // A restarted watchdog learns the groups already running.
    for (const pid of liveGroups) stdin.write(`+ ${pid}\n`);
    return stdin;
  } catch {
    watchdogFailed = true;
    return undefined;
  }
}

/**
 * Starts the watchdog now, so it is running before the first action is spawned (the worker calls
 * this as it is created). Otherwise a SIGKILL between that spawn and the watchdog's own start-up
 * would leave the action unguarded.
 */
export function startGroupWatchdog(): void {
  ensureWatchdog();
}

/** Records a new action's process group (its leader's pid). */
export function trackGroup(pid: number): void {
  liveGroups.add(pid);
  ensureWatchdog()?.write(`+ ${pid}\n`);
}

/** The group's leader exited: nothing more to guard (its stragglers are process.ts's job). */
export function untrackGroup(pid: number): void {
  if (!liveGroups.delete(pid)) return;
  watchdog?.stdin.write(`- ${pid}\n`);
}

process.once('exit', () => {
  for (const pid of liveGroups) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});
