/**
 * The fields of little-loops' format that ll-loop's own format spells differently or did not have,
 * so that a little-loops loop loads unchanged (docs/migrating.md). Spread into the loop's and the
 * state's shapes in fsm/schema.ts; their meaning, the spellings folded into ours at load, and the
 * one-line `validate` notes for fields that mean nothing here are in
 * fsm/definition/original-fields.ts.
 *
 * Every field is optional without a default: a loop that does not use one parses exactly as before.
 */
import { z } from 'zod';

const stateName = z.string().min(1);
const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a context key: letters, digits and _');
const positiveSeconds = z.number().positive();

/**
 * little-loops' validator warns about some patterns unless the loop acknowledges them with
 * `<check>_ok: true`. ll-loop runs none of those checks, so each is accepted and read by nothing.
 */
const ack = z.boolean().optional();
const acknowledgementShape = {
  meta_self_eval_ok: ack,
  shared_state_ok: ack,
  partial_route_ok: ack,
  artifact_versioning_ok: ack,
  capture_reachability_ok: ack,
  generator_fix_ok: ack,
  bash_default_ok: ack,
  evidence_contract_ok: ack,
  shell_pid_ok: ack,
  parse_swallow_ok: ack,
  policy_dims_scored_ok: ack,
  pruning_profile_ok: ack,
  prepatch_check_ok: ack,
  tamper_guard_ok: ack,
};
export const ACKNOWLEDGEMENTS = Object.keys(acknowledgementShape);

/** `visibility:`, little-loops' audience of a loop in `ll-loop list` (public by default). */
const VISIBILITIES = ['public', 'internal', 'example'] as const;

/** `pruning_profile:` names a context-pruning profile of little-loops' host integration. */
const pruningProfile = z.union([
  z.string().min(1),
  z.looseObject({
    enabled: z.boolean().optional(),
    name: z.string().optional(),
    suppress_claude_md: z.boolean().optional(),
  }),
]);

/** `learning:` of a `type: learning` state: the API targets little-loops' learning-tests registry proves. */
const learningConfig = z.strictObject({
  targets: z.array(z.string()).optional(),
  targets_csv: z.string().optional(),
  max_retries: z.number().int().min(0).optional(),
  max_retries_expr: z.string().optional(),
});

const throttleConfig = z.strictObject({
  normal_max: z.number().int().positive().optional(),
  warn_max: z.number().int().positive().optional(),
  hard_max: z.number().int().positive().optional(),
});

/**
 * `tamper_guard:` and `prepatch_check:` (agent fields) take one of a few words; little-loops warns
 * about another word and runs no guard, so any text loads (fsm/definition/original-fields.ts warns).
 * `tamper_guard` takes little-loops' words and `warn` (fsm/tamper-guard.ts).
 */
export const GUARD_VALUES = {
  tamper_guard: ['revert', 'fail', 'warn', 'allow'],
  prepatch_check: ['fail', 'warn', 'allow'],
} as const;
const guardWord = z.string().min(1);

/** little-loops' two session modes; `validate` warns about another word, which runs as `fresh`. */
export const SESSION_MODES = ['fresh', 'continue'] as const;

/** Loop-level fields of the original. */
export const originalLoopShape = {
  /** The context key the positional input of `ll-loop run <loop> <input>` goes to (default `input`). */
  input_key: identifier.optional(),
  /** Context keys that must be given and non-empty when a run starts. */
  required_inputs: z.array(identifier).optional(),
  /** Who the loop is for: `ll-loop list` shows `public` loops unless `--visibility` says otherwise. */
  visibility: z.enum(VISIBILITIES).optional(),
  /** Where the run goes, once, when `max_steps` is reached (instead of ending). */
  on_max_steps: stateName.optional(),
  /** Where the run goes, once, when `max_iterations` is reached (instead of ending). */
  on_max_iterations: stateName.optional(),
  /** little-loops' cap on revisits of one transition; ll-loop's limits are max_iterations and max_steps. */
  max_edge_revisits: z.number().int().positive().optional(),
  /** little-loops' artifact versioning of run files; a run's files here are kept per run anyway. */
  artifact_versioning: z.boolean().optional(),
  /** A description of the loop's flow for little-loops' diagrams and docs. */
  flow: z.unknown().optional(),
  /** little-loops' harness-optimize targets (read by its `harness-optimize` loop's tools). */
  targets: z.array(z.unknown()).optional(),
  /** little-loops' stall detector (`circuit.repeated_failure`). */
  circuit: z.record(z.string(), z.unknown()).nullish(),
  /** little-loops' host memory-pressure guard. */
  host_guard: z.record(z.string(), z.unknown()).nullish(),
  pruning_profile: pruningProfile.optional(),
  tamper_guard: guardWord.optional(),
  prepatch_check: guardWord.optional(),
  /** The session mode of prompt states without their own (`fresh` by default): fsm/run/agent-session.ts. */
  session_mode: z.string().min(1).optional(),
  /** The idle limit in seconds of actions without their own `idle_timeout` (0: none). */
  default_idle_timeout: z.number().nonnegative().optional(),
  ...acknowledgementShape,
};

/** State-level fields of the original. */
export const originalStateShape = {
  /** Re-entries of this state in a row (after its first) before the run goes to `on_retry_exhausted`. */
  max_retries: z.number().int().min(0).optional(),
  /** With max_retries: only these non-zero exit codes re-enter; others route `on_error` at once. */
  retryable_exit_codes: z.array(z.number().int().positive()).min(1).optional(),
  /** Rate-limit pauses of this state's agent calls before it routes `on_rate_limit_exhausted`. */
  max_rate_limit_retries: z.number().int().min(0).optional(),
  /** The first rate-limit pause in seconds (doubled each time). */
  rate_limit_backoff_base_seconds: positiveSeconds.optional(),
  /** The longest this state may stay rate limited, in seconds (0: no long wait, only max_rate_limit_retries pauses). */
  rate_limit_max_wait_seconds: z.number().nonnegative().optional(),
  /** little-loops' pauses of its long-wait tier, in seconds. */
  rate_limit_long_wait_ladder: z.array(positiveSeconds).min(1).optional(),
  /** The original's spelling of `with:` (folded into `with` at load). */
  with_: z.record(z.string(), z.unknown()).optional(),
  /** The host CLI's model for this state's prompt (folded into `llm.model` at load). */
  model: z.string().min(1).optional(),
  /** A fragment's declared parameters, carried into the state that uses the fragment. */
  parameters: z.record(z.string(), z.unknown()).optional(),
  /** little-loops' state kind (`learning`: prove API targets before advancing). */
  type: z.string().min(1).optional(),
  learning: learningConfig.optional(),
  /** Run the state in a git worktree of its own (little-loops' isolation). */
  worktree: z.union([z.boolean(), z.string().min(1), z.record(z.string(), z.unknown())]).optional(),
  pruning_profile: pruningProfile.optional(),
  throttle: throttleConfig.optional(),
  append_to_messages: z.string().optional(),
  /** `continue`: the prompt carries on the run's previous prompt action's agent session (fsm/run/agent-session.ts). */
  session_mode: z.string().min(1).optional(),
  /** Seconds without output after which the action is killed (`${prev.timeout_kind}` is then `idle`); a text is interpolated. */
  idle_timeout: z.union([z.number().nonnegative(), z.string().min(1)]).optional(),
  /** Run a passing check again before the patch: fail | warn | allow (fsm/prepatch-check.ts). */
  prepatch_check: guardWord.optional(),
  /** Compare the test files around the action: fail | warn | revert | allow (fsm/tamper-guard.ts). */
  tamper_guard: guardWord.optional(),
  /** Let the state's llm_structured judge answer `cannot_judge` (fsm/cannot-judge.ts). */
  cannot_judge: z.union([z.boolean(), z.string().min(1)]).optional(),
};

/** `score_stall`: no progress when the last `max_stall` rounds of a score history improved less than `epsilon`. */
export const scoreStallEvaluate = z.strictObject({
  type: z.literal('score_stall'),
  source: z.string().optional(),
  /** A file of scores, one a line, appended each round (default `${context.run_dir}/.score_history`). */
  history_file: z.string().min(1).optional(),
  epsilon: z.number().nonnegative().default(0.5),
  max_stall: z.number().int().positive().default(1),
});

/** `open_question_stall`: the same over a count of open questions, where lower is better (epsilon 0 by default). */
export const openQuestionStallEvaluate = z.strictObject({
  type: z.literal('open_question_stall'),
  source: z.string().optional(),
  /** Default `${context.run_dir}/.open_questions_history`. */
  history_file: z.string().min(1).optional(),
  epsilon: z.number().nonnegative().default(0),
  max_stall: z.number().int().positive().default(1),
});

/** `classify`: the verdict is a line of the output (the last by default), e.g. `RUN_CHILD`. */
export const classifyEvaluate = z.strictObject({
  type: z.literal('classify'),
  source: z.string().optional(),
  line: z.union([z.enum(['last', 'first']), z.number().int()]).default('last'),
});
