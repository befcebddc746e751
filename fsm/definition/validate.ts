/**
 * Loop validation: the schema, then the graph and the templates. Runs in `ll-loop validate` and
 * before every run. Pure: takes the parsed YAML value, returns diagnostics and, when there are no
 * errors, the definition with defaults applied.
 */
import { checkParallelState } from './parallel-checks.js';
import { ContextError, resolveContext } from './context.js';
import { error, hasErrors, warning, type Diagnostic } from '../diagnostics.js';
import { actionKind } from '../action.js';
import { providerDiagnostics } from '../llm-provider.js';
import { maxTokensWarnings } from './max-tokens.js';
import { parseMcpTarget } from '../mcp-call.js';
import { foldMcpTools } from './mcp-tool-field.js';
import { originalFields } from './original-fields.js';
import { CURRENT, declaredTargets, hasShorthand, NOT_VERDICT_ROUTES } from '../routing.js';
import { isHumanState } from '../human.js';
import { specProblems } from './parameters.js';
import { REUSE_LOOP_KEYS, REUSE_STATE_KEYS, loopDefinition, type LoopDefinition, type StateConfig } from '../schema.js';
import { schemaDiagnostics } from './schema-issues.js';
import { didYouMean } from '../suggest.js';
import { verdictWarnings } from './verdict-checks.js';
import { checkHumanState } from './human-checks.js';
import { checkShellActions, checkTemplates } from './template-checks.js';
import { checkCaptureOrder } from './capture-order.js';
import { checkCapturedFields } from './captured-fields.js';
import { checkUnsetContext } from './unset-context.js';
import { TemplateSyntaxError } from '../template.js';

export interface ValidationResult {
  definition?: LoopDefinition;
  diagnostics: Diagnostic[];
}

/** Example 6 of seed 001 writes the Python constant; it means "the default model". */
const DEFAULT_MODEL_PLACEHOLDER = '${DEFAULT_LLM_MODEL}';

type Path = Diagnostic['path'];

function checkGraph(def: LoopDefinition, out: Diagnostic[]): void {
  const names = Object.keys(def.states);
  if (!(def.initial in def.states)) {
    out.push(
      error(
        ['initial'],
        `initial state "${def.initial}" is not defined${didYouMean(def.initial, names)}`,
        `define states.${def.initial} or set initial: to one of ${names.join(', ')}`,
      ),
    );
  }
  if (!names.some((n) => def.states[n]?.terminal)) {
    out.push(
      error(
        ['states'],
        'no terminal state: the loop can only end by its limits',
        'add a state with terminal: true (e.g. done: { terminal: true })',
      ),
    );
  }
  for (const [name, state] of Object.entries(def.states)) {
    for (const { key, target } of declaredTargets(state)) {
      if (target === CURRENT || target.includes('${') || target in def.states) continue;
      out.push(
        error(
          ['states', name, ...key.split('.')],
          `${key} goes to "${target}", which is not a state${didYouMean(target, names)}`,
          `define states.${target} or route to one of ${names.join(', ')}`,
        ),
      );
    }
    checkState(def, name, state, out);
  }
  warnUnreachable(def, out);
  out.push(
    ...providerDiagnostics(
      def,
      Object.entries(def.states).flatMap(([state, s]) => (s.evaluate ? [{ state, config: s.evaluate }] : [])),
    ),
  );
}

/** An mcp_tool state names `<server>/<tool>`; `params:` and `mcp_result` belong to such states only. */
function checkMcpState(path: Path, state: StateConfig, out: Diagnostic[]): void {
  const mcp = state.action_type === 'mcp_tool';
  // A `tool:` that could not be folded into action: has its own error (fsm/definition/mcp-tool-field.ts).
  if (mcp && state.action === undefined && state.tool === undefined) {
    out.push(
      error(
        [...path, 'action_type'],
        'an mcp_tool state needs action: "<server>/<tool>"',
        'add action: naming a server of .mcp.json and its tool, e.g. action: "github/get_issue"',
      ),
    );
  } else if (mcp && state.action !== undefined && state.tool === undefined && !state.action.includes('${')) {
    const target = parseMcpTarget(state.action);
    if ('error' in target)
      out.push(
        error([...path, 'action'], target.error, 'write action: "<server>/<tool>", e.g. action: "github/get_issue"'),
      );
  }
  if (!mcp && state.params !== undefined) {
    out.push(
      error(
        [...path, 'params'],
        "params: is for action_type: mcp_tool states (the tool's arguments)",
        'add action_type: mcp_tool, or remove params:',
      ),
    );
  }
  if (!mcp && state.evaluate?.type === 'mcp_result') {
    out.push(
      error(
        [...path, 'evaluate'],
        'mcp_result judges the result of an action_type: mcp_tool state',
        'add action_type: mcp_tool with action: "<server>/<tool>", or choose another evaluator',
      ),
    );
  }
}

function checkState(def: LoopDefinition, name: string, state: StateConfig, out: Diagnostic[]): void {
  const path: Path = ['states', name];
  const hasWayOut = state.terminal || state.next !== undefined || state.route !== undefined || hasShorthand(state);
  if (!hasWayOut) {
    out.push(
      error(
        path,
        'state has no way out: no next, route, on_* or terminal',
        'add next: <state>, on_yes:/on_no:, a route: table, or terminal: true',
      ),
    );
  }
  if (state.route && hasShorthand(state)) {
    out.push(
      warning(
        path,
        'both route: and on_* shorthand are set; the route table wins and the shorthand is ignored',
        'move the shorthand entries into route:',
      ),
    );
  }
  if (state.next !== undefined && state.evaluate) {
    out.push(
      warning(
        [...path, 'evaluate'],
        'evaluate is ignored on a state with next: (next is unconditional)',
        'use on_yes/on_no or route: instead of next:',
      ),
    );
  }
  warnRoutesBesideNext(path, state, out);
  warnEndFields(path, state, out);
  if (
    state.evaluate?.type === 'convergence' &&
    state.evaluate.target === undefined &&
    state.evaluate.toward === undefined
  ) {
    out.push(error([...path, 'evaluate'], 'convergence needs a target', 'add target: <number> (or toward:)'));
  }
  const judged = state.evaluate?.type;
  if ((judged === 'llm_structured' || judged === 'contract' || judged === 'comparator') && !def.llm.enabled) {
    out.push(
      warning(
        [...path, 'evaluate'],
        `${judged} with LLM evaluation disabled gives an error verdict`,
        'route _error:/on_error:, or use a deterministic evaluator',
      ),
    );
  }
  if (
    state.action === undefined &&
    state.evaluate &&
    !('source' in state.evaluate && state.evaluate.source !== undefined) &&
    state.evaluate.type !== 'diff_stall' &&
    state.evaluate.type !== 'contract' &&
    !state.terminal
  ) {
    // little-loops runs such a state too, judging an empty output (exit code 0).
    out.push(
      warning(
        [...path, 'evaluate'],
        'a state without an action has nothing to evaluate: it judges an empty output, as in little-loops',
        'add source: "${prev.output}" (or "${captured.<name>.output}") to evaluate, or an action:',
      ),
    );
  }
  checkRetryAndMaintain(def, path, state, out);
  checkSubloopState(path, state, out);
  checkParallelState(path, state, out);
  checkMcpState(path, state, out);
  checkHumanState(path, state, out);
  if (
    state.action !== undefined &&
    actionKind(state) === 'prompt' &&
    state.evaluate === undefined &&
    !state.terminal &&
    state.next === undefined &&
    !def.llm.enabled
  ) {
    out.push(
      warning(
        path,
        'prompt state with LLM evaluation disabled is judged by the host CLI exit code',
        'add evaluate: to choose how it is judged',
      ),
    );
  }
}

/** A `loop:` state runs a child loop instead of an action; its outcome is the verdict. */
function checkSubloopState(path: Path, state: StateConfig, out: Diagnostic[]): void {
  if (state.loop === undefined) {
    for (const key of ['with', 'context_passthrough'] as const) {
      if (state[key] !== undefined)
        out.push(
          error(
            [...path, key],
            `${key}: only applies to a state that runs a sub-loop (loop:)`,
            `add loop: <name>, or remove ${key}:`,
          ),
        );
    }
    return;
  }
  if (state.loop.trim() === '')
    out.push(
      error([...path, 'loop'], 'loop: names no loop', 'write loop: <name> (a file in .loops/ or a built-in loop)'),
    );
  if (state.action !== undefined)
    out.push(
      error(
        [...path, 'action'],
        'a state runs either an action or a sub-loop (loop:), not both',
        'move the action to a state of its own',
      ),
    );
  if (state.evaluate !== undefined)
    out.push(
      error(
        [...path, 'evaluate'],
        "a sub-loop state is judged by the child loop's outcome, not by evaluate:",
        'remove evaluate:; route with on_success/on_failure/on_error',
      ),
    );
  if (state.terminal)
    out.push(
      error([...path, 'terminal'], 'a sub-loop state cannot be terminal', 'route its outcome to a terminal state'),
    );
  if (state.with !== undefined && state.context_passthrough === true) {
    out.push(
      error(
        [...path, 'with'],
        'with: and context_passthrough: true are mutually exclusive',
        "bind the child's parameters with with:, or pass the whole context with context_passthrough: true",
      ),
    );
  }
}

/** `retry:` needs an action (and, with `on:`, an evaluated state); `on_maintain` needs maintain mode; terminal states are never budget-checked. */
function checkRetryAndMaintain(def: LoopDefinition, path: Path, state: StateConfig, out: Diagnostic[]): void {
  const retry = state.retry;
  if (retry) {
    if (state.action === undefined) {
      out.push(
        error(
          [...path, 'retry'],
          'retry: on a state without an action: there is nothing to retry',
          'add an action:, or remove retry:',
        ),
      );
    } else if (retry.on && (state.terminal || state.next !== undefined)) {
      const why = state.terminal ? 'terminal states are not evaluated' : 'states with next: are not evaluated';
      out.push(
        error(
          [...path, 'retry', 'on'],
          `retry.on lists verdicts, but ${why}`,
          'remove on: to retry when the action exits non-zero',
        ),
      );
    }
    if (retry.attempts === 1)
      out.push(
        warning(
          [...path, 'retry', 'attempts'],
          'retry with attempts: 1 never retries (attempts counts the first one)',
          'set attempts: to 2 or more',
        ),
      );
  }
  if (state.terminal && (state.on_budget !== undefined || state.budget !== undefined)) {
    out.push(
      warning(
        [...path, state.budget !== undefined ? 'budget' : 'on_budget'],
        'a terminal state ends the run anyway: its budget is never checked',
        'move budget:/on_budget: to the states that call agents',
      ),
    );
  }
  if (typeof state.on_maintain === 'string') {
    if (!state.terminal)
      out.push(
        warning(
          [...path, 'on_maintain'],
          'on_maintain is only used on terminal states',
          'move it to the terminal state, or remove it',
        ),
      );
    else if (!def.maintain)
      out.push(
        warning(
          [...path, 'on_maintain'],
          'on_maintain has no effect without maintain: true',
          'add maintain: true at the top level, or remove on_maintain',
        ),
      );
  }
}

/**
 * Routes a state with `next:` never takes: `next:` is unconditional, so only `on_error:` (an action
 * that fails) is read beside it (fsm/run/steps.ts `decide`). A human state takes its answers' routes
 * first and `next:` for the rest, and a parallel state routes on its join: neither is warned.
 */
function warnRoutesBesideNext(path: Path, state: StateConfig, out: Diagnostic[]): void {
  if (state.next === undefined || state.terminal || state.parallel !== undefined || isHumanState(state)) return;
  const ignored = [
    ...(state.route ? ['route'] : []),
    ...Object.entries(state)
      .filter(([k, v]) => k.startsWith('on_') && typeof v === 'string' && k !== 'on_error')
      .filter(([k]) => !NOT_VERDICT_ROUTES.includes(k))
      .map(([k]) => k),
  ];
  if (!ignored.length) return;
  out.push(
    warning(
      [...path, ignored[0]!],
      `${ignored.join(', ')} ${ignored.length === 1 ? 'is' : 'are'} never used: this state has next: ${state.next}, which it always takes (only on_error: is read beside it)`,
      `remove next: to route on the verdict, or remove ${ignored.join(', ')}`,
    ),
  );
}

/**
 * Fields of a loop's end on a state that is not one, and routes on one that is: `failure: true`
 * marks only a terminal state (elsewhere no run ever ends failed by it), and a terminal state ends
 * the run once its action ran, so its `next:` and verdict routes are never taken (`on_maintain`
 * restarts a maintain loop, and is checked with it).
 */
function warnEndFields(path: Path, state: StateConfig, out: Diagnostic[]): void {
  if (state.failure && !state.terminal)
    out.push(
      warning(
        [...path, 'failure'],
        'failure: true only marks a terminal state; this state is not one, so no run ends failed by it',
        'add terminal: true, or remove failure:',
      ),
    );
  if (!state.terminal) return;
  const routes = [
    ...(state.next !== undefined ? ['next'] : []),
    ...(state.route ? ['route'] : []),
    ...Object.entries(state)
      .filter(([k, v]) => k.startsWith('on_') && typeof v === 'string' && k !== 'on_error')
      .filter(([k]) => !NOT_VERDICT_ROUTES.includes(k))
      .map(([k]) => k),
  ];
  if (routes.length)
    out.push(
      warning(
        [...path, routes[0]!],
        `${routes.join(', ')} ${routes.length === 1 ? 'is' : 'are'} never taken: a terminal state ends the run once its action ran`,
        `remove ${routes.join(', ')}, or remove terminal: true to go on from here`,
      ),
    );
}

function warnUnreachable(def: LoopDefinition, out: Diagnostic[]): void {
  const all = Object.values(def.states).flatMap((s) => declaredTargets(s));
  if (!(def.initial in def.states) || all.some((t) => t.target.includes('${'))) return;
  // The caps' handlers (little-loops' on_max_steps/on_max_iterations) are reached from any state.
  const starts = [def.initial, def.on_max_steps, def.on_max_iterations].filter(
    (s): s is string => s !== undefined && s in def.states,
  );
  const seen = new Set(starts);
  const queue = [...seen];
  while (queue.length) {
    const state = def.states[queue.shift()!];
    for (const { target } of state ? declaredTargets(state) : []) {
      if (target in def.states && !seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  for (const name of Object.keys(def.states)) {
    if (!seen.has(name))
      out.push(
        warning(
          ['states', name],
          `state is unreachable from initial state "${def.initial}"`,
          'route to it from another state, or delete it',
        ),
      );
  }
}

function checkLoop(def: LoopDefinition, out: Diagnostic[]): void {
  if (!def.description)
    out.push(warning(['name'], 'loop has no description', 'add description: — it is shown by ll-loop list'));
  try {
    resolveContext(def.context);
  } catch (err) {
    if (!(err instanceof ContextError || err instanceof TemplateSyntaxError)) throw err;
    // A value built from a parameter without a default resolves when a run gives it.
    const fromParameter =
      err instanceof ContextError && err.missing !== undefined && Object.hasOwn(def.parameters ?? {}, err.missing);
    if (!fromParameter)
      out.push(
        error(
          ['context', ...(err instanceof ContextError ? [err.key] : [])],
          err.message,
          err instanceof ContextError ? err.fix : undefined,
        ),
      );
  }
  for (const problem of specProblems(def)) {
    const at: Path = ['parameters', problem.parameter];
    out.push(problem.warning ? warning(at, problem.message, problem.fix) : error(at, problem.message, problem.fix));
  }
}

/** Validate a parsed loop document. */
/**
 * Reuse keys left in a document: the loader expands them (client/reuse.ts) before validation, so
 * one here means the document skipped that step. Said plainly rather than as "unknown field".
 */
function unexpandedReuse(raw: Record<string, unknown>): Diagnostic[] {
  const fix =
    'load the file with ll-loop (validate, run, show), which expands from:, import:, fragments: and fragment: first; see docs/reuse.md';
  const out = REUSE_LOOP_KEYS.filter((key) => Object.hasOwn(raw, key)).map((key) =>
    error([key], `${key}: was not expanded before validation`, fix),
  );
  const states = raw.states;
  if (states !== null && typeof states === 'object' && !Array.isArray(states)) {
    for (const [name, state] of Object.entries(states)) {
      if (state === null || typeof state !== 'object' || Array.isArray(state)) continue;
      for (const key of REUSE_STATE_KEYS) {
        if (Object.hasOwn(state, key))
          out.push(error(['states', name, key], `${key}: was not expanded before validation`, fix));
      }
    }
  }
  return out;
}

/** Whether the file itself gives `llm.max_tokens` (the definition always has one: 256 by default). */
function loopMaxTokensGiven(raw: Record<string, unknown>): boolean {
  const llm = raw['llm'];
  return typeof llm === 'object' && llm !== null && (llm as Record<string, unknown>)['max_tokens'] !== undefined;
}

/**
 * `runStarts`: the loop is loaded for a run about to start, with the command line's values in
 * its `context:`: a `${context.KEY}` nothing gives is an error, not a warning (unset-context.ts).
 */
export function validateLoop(raw: unknown, options: { runStarts?: boolean } = {}): ValidationResult {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    const got = raw === null ? 'an empty document' : Array.isArray(raw) ? 'a list' : `a ${typeof raw}`;
    return {
      diagnostics: [
        error(
          [],
          `a loop file must be a mapping with name:, initial: and states:, but this is ${got}`,
          'see docs/loop-format.md for the format',
        ),
      ],
    };
  }
  const leftovers = unexpandedReuse(raw as Record<string, unknown>);
  if (leftovers.length) return { diagnostics: leftovers };
  const parsed = loopDefinition.safeParse(raw);
  if (!parsed.success) return { diagnostics: schemaDiagnostics(parsed.error.issues, raw) };
  const def = parsed.data;
  if (def.llm.model === DEFAULT_MODEL_PLACEHOLDER) delete def.llm.model;
  const diagnostics: Diagnostic[] = [...originalFields(def), ...foldMcpTools(def)];
  checkGraph(def, diagnostics);
  checkTemplates(def, diagnostics);
  checkCaptureOrder(def, diagnostics);
  checkCapturedFields(def, diagnostics);
  checkUnsetContext(def, options.runStarts === true, diagnostics);
  checkShellActions(def, diagnostics);
  checkLoop(def, diagnostics);
  diagnostics.push(...verdictWarnings(def));
  diagnostics.push(...maxTokensWarnings(def, loopMaxTokensGiven(raw as Record<string, unknown>)));
  return hasErrors(diagnostics) ? { diagnostics } : { definition: def, diagnostics };
}
