/**
 * The loop format: one zod schema, the single source of truth for the YAML a user writes.
 *
 * Types (`LoopDefinition`, `StateConfig`, `EvaluateConfig`) and the editor JSON Schema
 * (`loopJsonSchema()`) are derived from it; nothing else describes the format.
 * Pure: importable inside the Temporal workflow sandbox.
 */
import { z } from 'zod';
import { COMPARISON_OPERATORS, DEFAULT_SCHEMA_RETRIES } from './schema-constants.js';
import {
  actionStallEvaluate,
  classifyEvaluate,
  openQuestionStallEvaluate,
  originalLoopShape,
  originalStateShape,
  scoreStallEvaluate,
} from './original-fields.js';
import { comparatorEvaluate, contractEvaluate } from './file-judges-schema.js';

/** A number, or a `${…}` template that must render to one when it is used. */
const numberOrTemplate = z.union([z.number(), z.string()]);
const stateName = z.string().min(1);
const seconds = z.number().positive();

/** A duration in seconds: a number, or a string with a unit (`90s`, `30m`, `6h`, `1d`). */
const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };
const DURATION_HELP = 'a duration is a number of seconds or a string like "90s", "30m", "6h", "1d"';
const duration = z.union(
  [
    z.number().positive(),
    z
      .string()
      .regex(/^\s*\d+(\.\d+)?\s*[smhd]\s*$/, DURATION_HELP)
      .transform((text) => {
        const m = /^\s*(\d+(?:\.\d+)?)\s*([smhd])\s*$/.exec(text)!;
        return Number(m[1]) * DURATION_UNITS[m[2]!]!;
      }),
  ],
  { error: (issue) => (typeof issue.input === 'number' ? 'a duration must be more than 0 seconds' : DURATION_HELP) },
);

const operator = z.enum(COMPARISON_OPERATORS);

/** Where an evaluator reads from: the action's stdout unless `source` says otherwise. */
const sourceField = { source: z.string().optional() };

export const exitCodeEvaluate = z.strictObject({ type: z.literal('exit_code'), ...sourceField });

export const outputNumericEvaluate = z.strictObject({
  type: z.literal('output_numeric'),
  ...sourceField,
  operator: operator.default('eq'),
  target: numberOrTemplate,
  /** Read the number of the output's last `<key>=<number>` field instead of the whole output. */
  key: z.string().min(1).optional(),
  /** little-loops accepts `path` here and reads nothing from it; so does ll-loop (noted). */
  path: z.string().optional(),
});

export const outputJsonEvaluate = z.strictObject({
  type: z.literal('output_json'),
  ...sourceField,
  path: z.string().min(1),
  operator: operator.default('eq'),
  /** Without a target the verdict is `yes` when the value at `path` is truthy. */
  target: z.unknown().optional(),
});

export const outputContainsEvaluate = z.strictObject({
  type: z.literal('output_contains'),
  ...sourceField,
  pattern: z.string().min(1),
  negate: z.boolean().default(false),
  /** Substrings that make the verdict `error` when the pattern is not found (not with `negate`). */
  error_patterns: z.array(z.string().min(1)).optional(),
});

export const convergenceEvaluate = z.strictObject({
  type: z.literal('convergence'),
  ...sourceField,
  target: numberOrTemplate.optional(),
  /** Alias of `target` (seed 001 uses both spellings). */
  toward: numberOrTemplate.optional(),
  tolerance: numberOrTemplate.default(0),
  previous: z.string().optional(),
  direction: z.enum(['minimize', 'maximize']).default('minimize'),
});

/** Who answers LLM evaluations (fsm/llm-provider.ts): the host CLI (default) or an HTTP API. */
const LLM_PROVIDERS = ['host-cli', 'anthropic', 'openai-compatible'] as const;

/**
 * Provider fields, at loop level (`llm:`) and per evaluation (`evaluate.llm:`, which overrides
 * the loop's field by field). `api_key_env` names the variable holding the key; the key itself
 * is read on the worker and never appears in a definition or in history.
 */
const llmProviderShape = {
  provider: z.enum(LLM_PROVIDERS).optional(),
  /** Omitted: the host CLI's own default model (an API provider requires one). */
  model: z.string().optional(),
  /** The API's address (`openai-compatible`: a local server such as Ollama, llama.cpp, vLLM). */
  base_url: z.url({ protocol: /^https?$/, error: 'base_url must be an http(s) URL' }).optional(),
  api_key_env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'api_key_env names an environment variable')
    .optional(),
  /** The answer's length cap in tokens, for an API provider (loop level: the judges', default 256). */
  max_tokens: z.number().int().positive().optional(),
};
export const llmOverride = z.strictObject(llmProviderShape);
export type LlmOverride = z.output<typeof llmOverride>;

const llmStructuredEvaluate = z.strictObject({
  type: z.literal('llm_structured'),
  ...sourceField,
  prompt: z.string().optional(),
  schema: z.record(z.string(), z.unknown()).optional(),
  llm: llmOverride.optional(),
  min_confidence: z.number().min(0).max(1).default(0.5),
  uncertain_suffix: z.boolean().default(false),
});

export const harborScorerEvaluate = z.strictObject({ type: z.literal('harbor_scorer'), ...sourceField });

/** Compares `git diff --stat` of `scope` (default: the whole repository) between passes. */
const diffStallEvaluate = z.strictObject({
  type: z.literal('diff_stall'),
  scope: z.array(z.string().min(1)).optional(),
  /** Consecutive unchanged passes before the verdict is `no`. */
  max_stall: z.number().int().positive().default(1),
});

/** Judges an mcp_tool state's result envelope; no fields (seed 001 tier 3). */
export const mcpResultEvaluate = z.strictObject({ type: z.literal('mcp_result') });

export const evaluateConfig = z.discriminatedUnion('type', [
  exitCodeEvaluate,
  outputNumericEvaluate,
  outputJsonEvaluate,
  outputContainsEvaluate,
  convergenceEvaluate,
  llmStructuredEvaluate,
  harborScorerEvaluate,
  diffStallEvaluate,
  mcpResultEvaluate,
  scoreStallEvaluate,
  openQuestionStallEvaluate,
  classifyEvaluate,
  actionStallEvaluate,
  comparatorEvaluate,
  contractEvaluate,
]);
export type EvaluateConfig = z.output<typeof evaluateConfig>;
export type EvaluatorType = EvaluateConfig['type'];

/** Evaluator types seed 001 names that this version does not run; validation says so plainly. */
export const UNSUPPORTED_EVALUATORS: readonly string[] = [];

const ACTION_TYPES = ['shell', 'prompt', 'slash_command', 'mcp_tool', 'human', 'human_approval'] as const;

/** What a `human` state asks a person (fsm/run/human.ts): approve (yes/no/edit), pick an option, write text, or give JSON. */
const HUMAN_ASKS = ['approval', 'choice', 'text', 'json'] as const;
export type HumanAsk = (typeof HUMAN_ASKS)[number];

/**
 * Author retries of a flaky action (`retry:` on a state; semantics in fsm/run/retry.ts and
 * docs/loop-format.md#retry). Separate from Temporal's retries of infrastructure faults.
 */
const retryConfig = z.strictObject({
  /** Total attempts, the first included: 1 never retries. */
  attempts: z.number().int().min(1).default(1),
  /** Seconds before the second attempt (a durable sleep). */
  backoff: z.number().nonnegative().default(1),
  /** Each further delay is the previous one times this. */
  backoff_coefficient: z.number().min(1).default(2),
  /** Cap on one delay, in seconds. */
  max_backoff: seconds.optional(),
  /** Retry when the evaluation gives one of these verdicts, instead of on a non-zero exit. */
  on: z.array(z.string().min(1)).min(1).optional(),
});
export type RetryConfig = z.output<typeof retryConfig>;
export const RETRY_KEYS = Object.keys(retryConfig.shape);

/**
 * What a run may spend on agent calls (prompt actions, LLM evaluations), at loop level and per
 * state (fsm/run/budget.ts, docs/loop-format.md#budgets). Each limit is reached when the spend is at
 * least the maximum; a run whose budget is spent routes `on_budget:` or ends `terminated_by: budget`.
 */
const budgetConfig = z.strictObject({
  /** US dollars, as the host CLI's JSON envelope or the provider's usage states them. */
  max_cost_usd: z.number().positive().optional(),
  /** Input plus output tokens. */
  max_tokens: z.number().int().positive().optional(),
  /** Wall time of agent calls, in seconds. */
  max_agent_seconds: z.number().positive().optional(),
});

/** One static branch of a `parallel:` state: a loop's name, or the loop with its parameters. */
const parallelBranch = z.union([
  z.string().min(1),
  z.strictObject({ loop: z.string().min(1), with: z.record(z.string(), z.unknown()).optional() }),
]);

/**
 * Temporal allows 2,000 pending child workflows per run; the cap leaves room for the parent's
 * other work and keeps one fan-out from holding a worker's every slot.
 */
const MAX_PARALLEL_WORKERS = 1000;

/**
 * A `parallel:` state (fsm/run/parallel.ts, docs/loop-format.md#parallel-states): each item (or
 * branch) runs a loop as a child run, at most `max_workers` at once, joined in item order.
 * Which of `items`/`branches` is given, and with what, is checked in fsm/definition/parallel-checks.ts.
 */
const parallelConfig = z.strictObject({
  /** A template rendering to a JSON array (or lines, with `items_from: lines`), or a YAML list. */
  items: z.union([z.string(), z.array(z.unknown())]).optional(),
  /** How a rendered `items` string is read: a JSON array (default) or one item per non-empty line. */
  items_from: z.enum(['json', 'lines']).optional(),
  /** Static branches instead of items: each a loop's name or `{ loop, with }`. */
  branches: z.array(parallelBranch).optional(),
  /** The loop each item runs (with `items`). */
  loop: z.string().min(1).optional(),
  /** Each item's parameters; string values are templates that may use `${item}` and `${item_index}`. */
  with: z.record(z.string(), z.unknown()).optional(),
  max_workers: z.number().int().min(1).max(MAX_PARALLEL_WORKERS).default(4),
  isolation: z.enum(['none', 'worktree']).default('none'),
  fail_mode: z.enum(['collect', 'fail_fast']).default('collect'),
});
export type ParallelConfig = z.output<typeof parallelConfig>;
export const PARALLEL_KEYS = Object.keys(parallelConfig.shape);

const stateShape = {
  description: z.string().optional(),
  action: z.string().optional(),
  /**
   * `prompt`/`slash_command` run the host CLI; `shell` forces bash even for a leading `/`;
   * `mcp_tool` calls `action: "<server>/<tool>"` of the project's `.mcp.json` with `params:`.
   */
  action_type: z.enum(ACTION_TYPES).optional(),
  /** mcp_tool only: the tool, with the server in `action:` (folded into `action: "<server>/<tool>"` at load; fsm/definition/mcp-tool-field.ts). */
  tool: z.string().min(1).optional(),
  /** mcp_tool only: the tool's arguments; string values are templates. */
  params: z.record(z.string(), z.unknown()).optional(),
  evaluate: evaluateConfig.optional(),
  next: stateName.optional(),
  route: z.record(z.string(), stateName).optional(),
  on_yes: stateName.optional(),
  on_no: stateName.optional(),
  on_error: stateName.optional(),
  /** Where the run goes when a budget (the loop's or this state's) is spent in this state; not a verdict route. */
  on_budget: stateName.optional(),
  /** This state's own limits on agent calls (its spend across all its executions). */
  budget: budgetConfig.optional(),
  on_blocked: stateName.optional(),
  on_success: stateName.optional(),
  on_failure: stateName.optional(),
  /** Where maintain mode restarts after this terminal state (seed 000; `null` there means unset). */
  on_maintain: stateName.nullish(),
  terminal: z.boolean().default(false),
  /** Marks a terminal state as a failed outcome (exit code 2, `on_no` of a parent loop). */
  failure: z.boolean().default(false),
  capture: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'capture names are identifiers')
    .optional(),
  timeout: seconds.optional(),
  retry: retryConfig.optional(),
  agent: z.string().optional(),
  /**
   * A prompt state's provider (fsm/llm-provider.ts): the loop's `llm:` overridden field by field.
   * Under an API provider the prompt is a plain completion whose text is the output.
   */
  llm: llmOverride.optional(),
  /** A JSON Schema the action's output (JSON) must match; the parsed value is `${captured.<name>.json}` and `${result.details.value}`. */
  output_schema: z.record(z.string(), z.unknown()).optional(),
  tools: z.array(z.string()).optional(),
  /** human states: the question (a template). */
  prompt: z.string().optional(),
  /** human states: what kind of answer (default `approval`). */
  ask: z.enum(HUMAN_ASKS).optional(),
  /** human states with `ask: choice`: the options, each a verdict (`on_<option>`). */
  options: z
    .array(z.string().regex(/^[A-Za-z0-9_]+$/, 'options are verdict names: letters, digits and _'))
    .min(1)
    .optional(),
  /** human states with `ask: json`: the JSON Schema the answer must match. */
  schema: z.record(z.string(), z.unknown()).optional(),
  /** human states: a shell command run (as an activity) when the wait starts; the loop's `notify:`, then `LL_NOTIFY`, by default. */
  notify: z.string().optional(),
  loop: z.string().optional(),
  context_passthrough: z.boolean().optional(),
  with: z.record(z.string(), z.unknown()).optional(),
  /** Fan-out: run a loop per item (or per branch) as child runs, joined (fsm/run/parallel.ts). */
  parallel: parallelConfig.optional(),
  /** little-loops' fields (fsm/original-fields.ts). */
  ...originalStateShape,
};

export const STATE_KEYS = Object.keys(stateShape);
/** Any `on_<verdict>` key is a shorthand route; everything else unknown is an error. */
const CUSTOM_ROUTE_KEY = /^on_[A-Za-z0-9_]+$/;

const stateConfig = z.looseObject(stateShape).superRefine((state, ctx) => {
  for (const [key, value] of Object.entries(state)) {
    if (key in stateShape) continue;
    if (CUSTOM_ROUTE_KEY.test(key)) {
      if (typeof value !== 'string' || value.length === 0) {
        ctx.addIssue({ code: 'custom', path: [key], message: `${key} must name a state` });
      }
      continue;
    }
    ctx.addIssue({
      code: 'custom',
      path: [key],
      message: `unknown state field "${key}"`,
      params: { unknownKey: key, known: STATE_KEYS },
    });
  }
});
export type StateConfig = z.output<typeof stateConfig>;

const llmConfig = z.strictObject({
  ...llmProviderShape,
  max_tokens: z.number().int().positive().default(256),
  timeout: seconds.default(1800),
  enabled: z.boolean().default(true),
  /** How many times an answer that misses its JSON Schema is asked again (errors appended) before the verdict is `error`. */
  schema_retries: z.number().int().min(0).max(10).default(DEFAULT_SCHEMA_RETRIES),
  /** Pauses on rate limits and spent quotas (fsm/run/rate-limit.ts has the defaults). */
  rate_limit: z
    .strictObject({
      /** The longest a call may stay rate limited, from its first pause; past it the verdict is `error`. */
      max_wait: duration.optional(),
      /** The first pause when no reset time is announced; doubled each time, up to `max_backoff`. */
      backoff: duration.optional(),
      max_backoff: duration.optional(),
      /** Added to an announced reset time. */
      margin: z.union([z.literal(0), duration]).optional(),
    })
    .optional(),
});

const parameterSpec = z.strictObject({
  // `command`: a shell command the operator supplies; the one kind of `--context` value spliced
  // into shell actions as code (every other one is data: docs/loop-format.md).
  type: z.enum(['string', 'integer', 'number', 'boolean', 'enum', 'path', 'command']),
  required: z.boolean().default(false),
  default: z.unknown().optional(),
  description: z.string().optional(),
  values: z.array(z.string()).optional(),
});

export const PARAMETER_KEYS = Object.keys(parameterSpec.shape);

const continuationConfig = z.looseObject({ max_continuations: z.number().int().positive().optional() });
/**
 * `config:`, little-loops' per-loop overrides of its global settings. The keys ll-loop reads are
 * typed; the rest (settings of little-loops' other tools) pass through unread (docs/decisions.md).
 */
const loopConfig = z.looseObject({
  handoff_threshold: z.number().int().min(1).max(100).optional(),
  automation: continuationConfig.optional(),
  continuation: continuationConfig.optional(),
});

const loopShape = {
  name: z.string().min(1),
  description: z.string().optional(),
  initial: stateName,
  states: z.record(z.string(), stateConfig),
  context: z.record(z.string(), z.unknown()).default({}),
  scope: z.array(z.string()).optional(),
  max_iterations: z.number().int().positive().default(50),
  /** Optional cap on state executions (no cap when absent). */
  max_steps: z.number().int().positive().optional(),
  backoff: z.number().nonnegative().optional(),
  timeout: seconds.optional(),
  default_timeout: seconds.optional(),
  maintain: z.boolean().default(false),
  maintain_delay: z.number().nonnegative().optional(),
  category: z.string().optional(),
  labels: z.array(z.string()).default([]),
  commands: z.array(z.strictObject({ cmd: z.string(), comment: z.string().optional() })).optional(),
  parameters: z.record(z.string(), parameterSpec).optional(),
  config: loopConfig.optional(),
  llm: llmConfig.default({ max_tokens: 256, timeout: 1800, enabled: true, schema_retries: DEFAULT_SCHEMA_RETRIES }),
  /** What a `CONTEXT_HANDOFF:` line in an action's output does (fsm/run/on-signal.ts); absent: pause. */
  on_handoff: z.enum(['pause', 'spawn', 'terminate']).optional(),
  /** The run's limits on agent calls (sub-loops spend from it too). */
  budget: budgetConfig.optional(),
  /** The default `notify:` of the loop's human states. */
  notify: z.string().optional(),
  /** little-loops' fields (fsm/original-fields.ts). */
  ...originalLoopShape,
};
export const LOOP_KEYS = Object.keys(loopShape);

export const loopDefinition = z.strictObject(loopShape);
export type LoopDefinition = z.output<typeof loopDefinition>;

/**
 * Reuse keys (docs/reuse.md): part of the file a user writes, consumed by the loader before
 * validation (client/reuse.ts). They are deliberately not in `loopDefinition`: a definition never
 * holds them, so one that reaches validation unexpanded is an error, not silently ignored.
 */
const reuseLoopShape = {
  from: z.string().min(1),
  import: z.array(z.string().min(1)),
  fragments: z.record(z.string(), z.record(z.string(), z.unknown())),
};
const reuseStateShape = {
  fragment: z.string().min(1),
};
export const REUSE_LOOP_KEYS = Object.keys(reuseLoopShape);
export const REUSE_STATE_KEYS = Object.keys(reuseStateShape);

/** A sub-schema's JSON Schema, without the `$schema` marker that only the root carries. */
function jsonPart(type: z.ZodType): Record<string, unknown> {
  const { $schema: _marker, ...rest } = z.toJSONSchema(type) as Record<string, unknown>;
  return rest;
}

/** JSON Schema for editors (yaml-language-server, VS Code), derived from the zod schema. */
export function loopJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(loopDefinition, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const properties = schema.properties as Record<string, Record<string, unknown>>;
  // The editor sees the file as written, so the reuse keys are part of it there.
  for (const [key, type] of Object.entries(reuseLoopShape)) properties[key] = jsonPart(type);
  // zod cannot express "any on_<verdict> key is a route": say it here, and close the state object.
  const state = (properties.states as { additionalProperties?: Record<string, unknown> } | undefined)
    ?.additionalProperties;
  if (state) {
    const stateProperties = state.properties as Record<string, unknown>;
    for (const [key, type] of Object.entries(reuseStateShape)) stateProperties[key] = jsonPart(type);
    state.patternProperties = { [CUSTOM_ROUTE_KEY.source]: { type: 'string', minLength: 1 } };
    state.additionalProperties = false;
  }
  return schema;
}
