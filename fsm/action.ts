/** How a state's action runs: its kind, its timeout, and how it is shown in events. */
import { interpolate, resolveRef, type InterpolationScope } from './interpolate.js';
import type { LoopDefinition, StateConfig } from './schema.js';
import { DEFAULT_MCP_TIMEOUT_S } from './mcp-call.js';
import { parseTemplate } from './template.js';

/** Documented default action timeout (seconds) when neither `timeout` nor `default_timeout` is set. */
export const DEFAULT_ACTION_TIMEOUT_S = 3600;

/**
 * `prompt` runs the host CLI, `shell` runs bash. Without `action_type`, a leading `/` marks a slash
 * command (`/ll:check-code fix`), unless its first word is a path with a second `/`
 * (`/usr/bin/make test`), which is a shell command.
 */
export function actionKind(state: StateConfig): 'shell' | 'prompt' | 'mcp' {
  if (state.action_type === 'shell') return 'shell';
  if (state.action_type === 'mcp_tool') return 'mcp';
  if (state.action_type === 'prompt' || state.action_type === 'slash_command') return 'prompt';
  return textKind(state.action ?? '');
}

/** How an action without `action_type` runs, from its text alone (never an MCP call). */
export function textKind(text: string): 'shell' | 'prompt' {
  const action = text.trimStart();
  if (!action.startsWith('/')) return 'shell';
  const firstWord = action.split(/\s/, 1)[0] ?? '';
  return firstWord.indexOf('/', 1) >= 0 ? 'shell' : 'prompt';
}

/** The effective action timeout in seconds: state `timeout`, loop `default_timeout`, then 3600 (30 for an MCP tool call). */
export function actionTimeout(def: LoopDefinition, state: StateConfig): number {
  return (
    state.timeout ??
    def.default_timeout ??
    (state.action_type === 'mcp_tool' ? DEFAULT_MCP_TIMEOUT_S : DEFAULT_ACTION_TIMEOUT_S)
  );
}

/**
 * The effective idle limit in seconds (little-loops' `idle_timeout`): the state's, else the loop's
 * `default_idle_timeout`; undefined when neither is set, when it is 0, and for an MCP tool call
 * (which prints nothing while it waits). A text value is interpolated, then read as seconds.
 * @throws Error naming the field and the fix when the value is not a number of seconds
 * (InterpolationError for an unresolvable reference).
 */
export function actionIdleTimeout(
  def: LoopDefinition,
  state: StateConfig,
  scope: InterpolationScope,
): number | undefined {
  if (actionKind(state) === 'mcp') return undefined;
  const raw = state.idle_timeout ?? def.default_idle_timeout;
  if (raw === undefined) return undefined;
  const seconds = typeof raw === 'number' ? raw : Number(interpolate(raw, scope).trim());
  if (!Number.isFinite(seconds) || seconds < 0)
    throw new Error(
      `idle_timeout: "${String(raw)}" is not a number of seconds; write a number (e.g. idle_timeout: 300) or a reference to one`,
    );
  return seconds > 0 ? seconds : undefined;
}

/**
 * The action as shown in events and the progress display: values filled in, `${env.*}` left as
 * written (env values must not reach history or event files). Unresolvable references stay raw.
 */
export function displayAction(template: string, scope: InterpolationScope): string {
  let out = '';
  try {
    for (const segment of parseTemplate(template)) {
      if (segment.kind === 'text') out += segment.text;
      else if (segment.namespace === 'env') out += segment.raw;
      else {
        try {
          out += resolveRef(segment, scope);
        } catch {
          out += segment.raw;
        }
      }
    }
  } catch {
    return template;
  }
  return out;
}
