/**
 * Review rules about single states and the loop's limits: agent states without a tamper guard,
 * actions that may fail with no `on_error`, captures nothing reads, and a `max_iterations` that
 * ends the run before a declared budget of attempts is spent. Pure.
 */
import { actionKind } from '../../action.js';
import { routeFor } from '../../routing.js';
import type { LoopDefinition, StateConfig } from '../../schema.js';
import type { ReviewOptions, ReviewRule } from './finding.js';

/**
 * An agent state: a prompt action (the host CLI or an API provider runs it), or a shell action
 * that runs the host CLI itself (a command word that is one of `hostClis`, path or not).
 */
function isAgentState(state: StateConfig, opts: ReviewOptions): boolean {
  if (state.action === undefined || state.loop !== undefined) return false;
  const kind = actionKind(state);
  if (kind === 'prompt') return true;
  if (kind !== 'shell') return false;
  const words = state.action.split(/[\s;&|()`]+/).map((w) => w.slice(w.lastIndexOf('/') + 1));
  return words.some((w) => opts.hostClis.includes(w));
}

export const agentTamperGuard: ReviewRule = {
  id: 'agent-without-tamper-guard',
  severity: 'warning',
  summary: 'an agent state (prompt, or a shell action running the host CLI) with no tamper_guard',
  check(def, opts) {
    if (def.tamper_guard !== undefined || def.tamper_guard_ok === true) return [];
    return Object.entries(def.states)
      .filter(([, s]) => !s.terminal && s.tamper_guard === undefined && isAgentState(s, opts))
      .map(([name]) => ({
        rule: this.id,
        severity: this.severity,
        state: name,
        message:
          'an agent acts here with no tamper guard: it can edit the tests, linters or scripts that later judge its work, and the loop would take that as success',
        fix: `add tamper_guard: revert (or fail) to "${name}" or to the loop; when the agent is meant to change the checks, say so with tamper_guard: allow or tamper_guard_ok: true at the top`,
      }));
  },
};

/** What can fail in a state regardless of the project: an agent, a tool server, a sub-loop. */
function mayFail(def: LoopDefinition, state: StateConfig): string | undefined {
  if (state.terminal) return undefined;
  if (state.loop !== undefined) return 'its sub-loop can fail to start or end with an error';
  if (state.action !== undefined) {
    const kind = actionKind(state);
    if (kind === 'prompt') return 'its agent can fail (host CLI missing, timeout, rate limit, provider error)';
    if (kind === 'mcp') return 'its tool server can fail or be unreachable';
  }
  if (state.evaluate?.type === 'llm_structured' && def.llm.enabled)
    return 'its LLM evaluation can fail (no answer, an answer outside the schema)';
  return undefined;
}

export const missingOnError: ReviewRule = {
  id: 'action-without-on-error',
  severity: 'warning',
  summary: 'a state whose agent, tool call, sub-loop or LLM evaluation may fail has no route for error',
  check(def) {
    return Object.entries(def.states).flatMap(([name, s]) => {
      const why = mayFail(def, s);
      if (why === undefined || routeFor(s, 'error') !== undefined) return [];
      return [
        {
          rule: this.id,
          severity: this.severity,
          state: name,
          message: `${why}, and no route handles the error: the run would end there with "no valid transition"`,
          fix: `add on_error: <state> to "${name}" (a state that reports what failed, or a failure terminal)${s.route ? ', or _error: <state> to its route:' : ''}`,
        },
      ];
    });
  },
};

export const unusedCapture: ReviewRule = {
  id: 'unused-capture',
  severity: 'warning',
  summary: 'a capture: that no template of the loop reads',
  check(def) {
    const text = JSON.stringify(def);
    return Object.entries(def.states).flatMap(([name, s]) => {
      if (s.capture === undefined) return [];
      const read = new RegExp(`captured\\.${s.capture}(?![A-Za-z0-9_])`);
      if (read.test(text)) return [];
      return [
        {
          rule: this.id,
          severity: this.severity,
          state: name,
          message: `capture: ${s.capture} is stored in every run but no template of the loop reads \${captured.${s.capture}…}: it only reaches the run's result (run --json, a parent's context_passthrough)`,
          fix: `use it (e.g. \${captured.${s.capture}.output} in a later prompt or evaluate source), or remove capture: from "${name}" unless a script or a parent loop reads it`,
        },
      ];
    });
  },
};

/** A number written in the loop, or the value of the `${context.X}` it names (context, then the parameter's default). */
function numberOf(def: LoopDefinition, value: unknown): { n: number; from: string } | undefined {
  if (typeof value === 'number') return { n: value, from: String(value) };
  if (typeof value !== 'string') return undefined;
  const ref = /^\s*\$\{context\.([A-Za-z_][A-Za-z0-9_]*)\}\s*$/.exec(value);
  if (!ref)
    return Number.isFinite(Number(value)) && value.trim() !== '' ? { n: Number(value), from: value } : undefined;
  const raw = def.context[ref[1]!] ?? def.parameters?.[ref[1]!]?.default;
  const n = Number(raw);
  return raw !== undefined && Number.isFinite(n) ? { n, from: `${ref[1]}=${String(raw)}` } : undefined;
}

/** The passes a state's declared budget needs before it can say "spent", or undefined. */
function passesNeeded(def: LoopDefinition, s: StateConfig): { passes: number; budget: string } | undefined {
  const e = s.evaluate;
  if (e?.type === 'output_numeric' && /^\s*\$\{state\.iteration\}\s*$/.test(e.source ?? '')) {
    const target = numberOf(def, e.target);
    if (target === undefined) return undefined;
    // `le N` answers no first on pass N+1, `lt N` on pass N.
    if (e.operator === 'le') return { passes: target.n + 1, budget: `\${state.iteration} le ${target.from}` };
    if (e.operator === 'lt') return { passes: target.n, budget: `\${state.iteration} lt ${target.from}` };
    return undefined;
  }
  // Each re-entry is a pass: the state runs max_retries + 1 times in a row, then routes on_retry_exhausted.
  if (s.max_retries !== undefined) return { passes: s.max_retries + 2, budget: `max_retries: ${s.max_retries}` };
  return undefined;
}

export const lowMaxIterations: ReviewRule = {
  id: 'max-iterations-below-budget',
  severity: 'warning',
  summary: 'max_iterations ends the run before a declared budget of attempts can be spent',
  check(def) {
    return Object.entries(def.states).flatMap(([name, s]) => {
      const need = passesNeeded(def, s);
      if (need === undefined || need.passes <= def.max_iterations) return [];
      return [
        {
          rule: this.id,
          severity: this.severity,
          state: name,
          message: `the budget ${need.budget} needs ${need.passes} passes to run out, but max_iterations is ${def.max_iterations}: the run stops on the limit (exit 3) instead of taking this state's exhausted route`,
          fix: `raise max_iterations to at least ${need.passes}, or lower the budget`,
        },
      ];
    });
  },
};
