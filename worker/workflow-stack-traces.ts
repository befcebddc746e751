/**
 * ll-loop's workers and replayers run without the SDK's workflow stack traces.
 *
 * To answer the `__stack_trace` query (the Web UI's "Stack Trace" tab), the SDK installs two
 * process-wide hooks the first time it creates a worker: a V8 promise hook that, for every promise
 * created in workflow code, captures a stack and maps it through the bundle's source map, and an
 * `Error.prepareStackTrace` that maps every stack through it. Off the main thread they would only
 * touch the workflow thread, but ll-loop runs workflows on the main thread (create-worker.ts) and
 * the SDK's replayers always do, so the hook also runs for every promise of the activities, the
 * client, the event hub and the command (sdk-typescript issue 1587). Measured with
 * `npm run bench -- --only transitions`: the worker's CPU per remote transition 7.7–9.6 ms with
 * the hooks, 6.2–8.3 ms without; per local one 5.5–7.0 against 4.5–6.2.
 *
 * What is given up: ll-loop's workflow is the FSM interpreter, so its stack names the
 * interpreter's await, never the loop's state (the `LoopState` search attribute, `ll-loop status`
 * and the Web UI's history say where a run is). The query answers "Workflow stack traces are not
 * enabled on this worker", and a failure's stack points into the workflow bundle instead of
 * workflows/*.ts.
 *
 * How: the SDK installs the hooks only while `globalHandlers.installed` is false, and tells each
 * workflow whether it collects stacks from `promiseHookInstalled`. Both are public fields of its
 * (pinned) module, set here before any worker or replayer exists.
 * tests/integration/workflow-stack-traces.test.ts fails if the SDK stops reading them.
 */
import { globalHandlers } from '@temporalio/worker/lib/workflow/vm-shared.js';

/** Call before creating a worker or a replayer in this process (idempotent). */
export function withoutWorkflowStackTraces(): void {
  // Once the SDK has installed its hooks, nothing here can take them out again.
  if (globalHandlers.installed) return;
  globalHandlers.installed = true;
  globalHandlers.promiseHookInstalled = false;
}
