/**
 * An `action_type: mcp_tool` state's call, rendered by the core: `action: "<server>/<tool>"` and
 * `params:` with `${…}` interpolated in every string value. `${env.*}` stays a reference (like in
 * prompts) so the value is looked up on the worker and never reaches the history.
 */
import { InterpolationError, renderPrompt, type InterpolationScope } from './interpolate.js';
import type { McpCall, McpEnvParam } from './types.js';

/** The seed's default for MCP tool calls when neither `timeout` nor `default_timeout` is set. */
export const DEFAULT_MCP_TIMEOUT_S = 30;

/** `server/tool` split at the first `/`, or why it is not one. */
export function parseMcpTarget(action: string): { server: string; tool: string } | { error: string } {
  const at = action.indexOf('/');
  const server = action.slice(0, at).trim();
  const tool = action.slice(at + 1).trim();
  if (at < 0 || server === '' || tool === '') {
    return {
      error: `an mcp_tool action is "<server>/<tool>" (a server of .mcp.json and one of its tools), not ${JSON.stringify(action)}`,
    };
  }
  return { server, tool };
}

/** Render the call. Throws InterpolationError for an unresolvable reference or a bad target. */
export function renderMcpCall(
  action: string,
  params: Record<string, unknown> | undefined,
  scope: InterpolationScope,
): McpCall {
  const target = renderPrompt(action, scope);
  if (target.parts.some((p) => typeof p !== 'string'))
    throw new InterpolationError(
      'an mcp_tool action cannot name its server or tool with ${env.*}',
      action,
      'env_not_here',
    );
  const parsed = parseMcpTarget(target.parts.join(''));
  if ('error' in parsed) throw new InterpolationError(parsed.error, action, 'syntax');
  const envParams: McpEnvParam[] = [];
  const render = (value: unknown, path: Array<string | number>): unknown => {
    if (typeof value === 'string') {
      const text = renderPrompt(value, scope);
      if (text.parts.every((p) => typeof p === 'string')) return text.parts.join('');
      envParams.push({ path, text });
      return null;
    }
    if (Array.isArray(value)) return value.map((v, i) => render(v, [...path, i]));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, render(v, [...path, k])]));
    }
    return value;
  };
  const rendered = render(params ?? {}, []) as Record<string, unknown>;
  return { ...parsed, params: rendered, ...(envParams.length ? { env_params: envParams } : {}) };
}
