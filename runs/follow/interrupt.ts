/**
 * Ctrl-C while a run is followed in the foreground (`run`, `resume`): the first SIGINT/SIGTERM
 * stops the run gracefully (the workflow is cancelled: its action is killed, the outcome
 * recorded); a second exits at once. The Temporal SDK's own signal handling is off
 * (installQuietRuntime), so this is the only handler.
 */
import { EXIT } from '../../errors/exit-codes.js';

/** Where a stop request goes once the workflow exists; before that it is only noted. */
export interface Interrupt {
  requested: boolean;
  cancel?: () => void;
}

/** What the first Ctrl-C prints. */
export const STOPPING_NOTE = '\nstopping: cancelling the running action (Ctrl-C again to exit at once)\n';

/** Install the handlers; returns the function that removes them. */
function onInterrupt(cancel: () => void, err: (text: string) => void = (t) => process.stderr.write(t)): () => void {
  let count = 0;
  const handler = () => {
    count += 1;
    if (count === 1) {
      err(STOPPING_NOTE);
      cancel();
    } else process.exit(EXIT.cancelled);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

/**
 * An Interrupt wired to the process signals: `cancel` is set once the workflow is started. The
 * "stopping" note goes to `err` (stderr by default).
 */
export function interruptible(err?: (text: string) => void): { interrupt: Interrupt; stop: () => void } {
  const interrupt: Interrupt = { requested: false };
  const stop = onInterrupt(() => {
    interrupt.requested = true;
    interrupt.cancel?.();
  }, err);
  return { interrupt, stop };
}

/** Point the interrupt at a started run (cancelling at once if Ctrl-C came before). */
export function armInterrupt(interrupt: Interrupt, cancel: () => Promise<unknown>): void {
  interrupt.cancel = () => void cancel().catch(() => undefined);
  if (interrupt.requested) interrupt.cancel();
}

/** Call `then` once `signal` is aborted (at once when it already is). */
export function onAbort(signal: AbortSignal | undefined, then: () => void): void {
  if (signal?.aborted) then();
  else signal?.addEventListener('abort', then, { once: true });
}
