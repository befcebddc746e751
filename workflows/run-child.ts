/**
 * Running a sub-loop state's child loop as a Temporal child workflow (visible as such in the Web
 * UI, under its parent). The child's definition is read by the `loadSubloop` activity on the
 * worker; the child runs on the parent's task queue with the parent's options.
 *
 * Cancellation: the child runs in the parent's cancellation scope with WAIT_CANCELLATION_COMPLETED,
 * so stopping the parent (or its loop timeout) cancels the child, which kills its processes
 * before the parent records its own end. The parent close policy (TERMINATE) covers a parent that
 * is terminated outright.
 */
import {
  ApplicationFailure,
  CancelledFailure,
  ChildWorkflowFailure,
  CancellationScope,
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  executeChild,
  isCancellation,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { LoopActivities } from './activity-types.js';
import type { RunEvent } from '../fsm/run/snapshot.js';
import type { RunLoopInput } from '../fsm/types.js';
import type { LoopDefinition } from '../fsm/schema.js';
import { LOOP_FAILED, MAX_SUBLOOP_DEPTH, type LoopRunResult, type LoopWorkflowInput } from './definitions.js';
import { failureOf } from './error-text.js';

const LOAD_OPTIONS = {
  startToCloseTimeout: '60s',
  retry: { maximumAttempts: 3 },
  summary: 'load sub-loop',
};

/** The loop files are where the actions run: on the pinned or claimed host's queue when there is one. */
function loader(parent: LoopWorkflowInput): LoopActivities['loadSubloop'] {
  const queue = parent.options.actionQueue;
  return proxyActivities<LoopActivities>(queue ? { ...LOAD_OPTIONS, taskQueue: queue } : LOAD_OPTIONS).loadSubloop;
}

/** A child loop's definition as the worker read it, or why it has none. */
export type LoadedChild = { definition: LoopDefinition; file: string };

/** The child's depth below the top-level run, or the `too_deep` fact when it would nest too deep. */
export function childDepth(parent: LoopWorkflowInput, loop: string): number | RunEvent {
  const depth = (parent.child?.depth ?? 0) + 1;
  if (depth > MAX_SUBLOOP_DEPTH)
    return {
      type: 'subloop_unavailable',
      why: { reason: 'too_deep', loop, depth, limit: MAX_SUBLOOP_DEPTH },
      now: Date.now(),
    };
  return depth;
}

/** Read the child loop `loop` on the worker (the `loadSubloop` activity), or the fact of why it cannot run. */
export async function loadChild(parent: LoopWorkflowInput, loop: string): Promise<LoadedChild | RunEvent> {
  let loaded: Awaited<ReturnType<LoopActivities['loadSubloop']>>;
  try {
    loaded = await loader(parent)({ name: loop, cwd: parent.options.cwd });
  } catch (err) {
    if (isCancellation(err)) throw err;
    return {
      type: 'subloop_unavailable',
      why: { reason: 'load_failed', loop, failure: failureOf(err) },
      now: Date.now(),
    };
  }
  if ('error' in loaded)
    return { type: 'subloop_unavailable', why: { reason: 'invalid', error: loaded.error }, now: Date.now() };
  return loaded;
}

/** What the child is given: its definition, the parent's options (not failing on a non-terminal end), what it is bound with. */
export function childInput(
  parent: LoopWorkflowInput,
  request: Pick<RunLoopInput, 'passthrough' | 'bindings' | 'budget'>,
  definition: LoopDefinition,
  depth: number,
  parentId: string,
): LoopWorkflowInput {
  return {
    definition,
    // A child that did not succeed fails with LoopFailed; its parent reads the result from it.
    // `failOnNonTerminal: false` is ignored today, written as every release wrote it.
    options: { ...parent.options, failOnNonTerminal: false },
    child: {
      depth,
      parent: parentId,
      ...(request.passthrough ? { passthrough: request.passthrough } : {}),
      ...(request.bindings ? { bindings: request.bindings } : {}),
      // Only parents with a budget pass one: the child spends from what is left of it.
      ...(request.budget ? { budget: request.budget } : {}),
    },
  };
}

/** How the child workflow is started: its id, queue, cancellation, memo, summary and search attributes. */
export function childOptions(
  parent: LoopWorkflowInput,
  input: LoopWorkflowInput,
  file: string,
  ids: { parentId: string; workflowId: string; summary: string; memo?: Record<string, unknown> },
) {
  const definition = input.definition;
  return {
    args: [input] as [LoopWorkflowInput],
    workflowId: ids.workflowId,
    taskQueue: workflowInfo().taskQueue,
    cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
    parentClosePolicy: ParentClosePolicy.TERMINATE,
    memo: {
      ...inheritedMemo(),
      cwd: input.options.cwd,
      file,
      loop: definition.name,
      parent: ids.parentId,
      ...ids.memo,
    },
    staticSummary: ids.summary.slice(0, 190),
    ...(parent.options.searchAttributes
      ? {
          searchAttributes: {
            LoopName: [definition.name],
            LoopCategory: [definition.category ?? ''],
            ...inheritedCheckout(),
          },
        }
      : {}),
  };
}

/** Run the child of a sub-loop state; the facts of how it ended are for the core to judge. */
export async function runChild(parent: LoopWorkflowInput, request: RunLoopInput, parentId: string): Promise<RunEvent> {
  const depth = childDepth(parent, request.loop);
  if (typeof depth !== 'number') return depth;
  const loaded = await loadChild(parent, request.loop);
  if ('type' in loaded) return loaded;
  const definition = loaded.definition;
  const input = childInput(parent, request, definition, depth, parentId);
  // The state's `timeout:` bounds the child run: when it runs out the child is cancelled (its
  // processes killed, its captured values kept) and the state's verdict is `error`.
  const limit =
    request.timeout_s === undefined
      ? undefined
      : new CancellationScope({ cancellable: true, timeout: request.timeout_s * 1000 });
  const timedOut = () =>
    limit !== undefined && limit.consideredCancelled && !CancellationScope.current().consideredCancelled;
  const run = () =>
    executeChild(
      'loopWorkflow',
      childOptions(parent, input, loaded.file, {
        parentId,
        workflowId: `${parentId}.${request.state}.${request.step}`,
        summary: `ll-loop: ${definition.name} (sub-loop of state ${request.state})`,
      }),
    );
  try {
    // A child of 0.4.0 or later that did not succeed fails with its result (fsm/run/outcome.ts).
    const result = await (limit ? limit.run(run) : run()).catch((err: unknown) => {
      const failed = resultOfFailedChild(err);
      if (failed) return failed;
      throw err;
    });
    // A stopped parent cancels the child, which records its own cancelled end and completes:
    // that is this run being stopped, not a sub-loop outcome to route on.
    if (CancellationScope.current().consideredCancelled)
      throw new CancelledFailure(`stopped while sub-loop "${definition.name}" ran`);
    const { snapshot: _snapshot, ...outcome } = result;
    return { type: 'subloop_done', result: outcome, timedOut: timedOut(), now: Date.now() };
  } catch (err) {
    // Only this run being stopped stops it; a child cancelled on its own is a failed sub-loop.
    if (isCancellation(err) && CancellationScope.current().consideredCancelled) throw err;
    return {
      type: 'subloop_failed',
      loop: timedOut() ? request.loop : definition.name,
      failure: failureOf(err),
      timedOut: timedOut(),
      now: Date.now(),
    };
  }
}

/** The loop result a child that did not succeed failed with (LoopFailed), if that is what `err` is. */
export function resultOfFailedChild(err: unknown): LoopRunResult | undefined {
  if (!(err instanceof ChildWorkflowFailure)) return undefined;
  const cause = err.cause;
  if (!(cause instanceof ApplicationFailure) || cause.type !== LOOP_FAILED) return undefined;
  return cause.details?.[0] as LoopRunResult | undefined;
}

/**
 * The parent's checkout (its `LoopCheckout`) for the child's search attributes (the
 * `childCheckout` rule): a sub-loop run belongs to the project its parent was started in.
 */
function inheritedCheckout(): { LoopCheckout?: string[] } {
  const checkout = workflowInfo().searchAttributes?.LoopCheckout?.[0];
  return typeof checkout === 'string' && checkout !== '' ? { LoopCheckout: [checkout] } : {};
}

/** The parent's ll-loop version and build id, for the child's memo (the Web UI shows them). */
function inheritedMemo(): Record<string, unknown> {
  const memo = workflowInfo().memo ?? {};
  return Object.fromEntries(
    ['version', 'build_id'].filter((key) => memo[key] !== undefined).map((key) => [key, memo[key]]),
  );
}
