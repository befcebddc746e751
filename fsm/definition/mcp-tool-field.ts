/**
 * `tool:` on an mcp_tool state: the tool named apart from its server, as in
 *
 *   action: github        # a server of .mcp.json
 *   tool: get_issue
 *
 * which means exactly `action: "github/get_issue"` (the original's spelling, which stays the one
 * the engine sees). Folded into `action` right after parsing, so runs, histories and every later
 * check know one form only.
 */
import { error, type Diagnostic } from '../diagnostics.js';
import type { LoopDefinition } from '../schema.js';

/** Folds each state's `tool:` into its `action:` (in place); the diagnostics of those that cannot be. */
export function foldMcpTools(def: LoopDefinition): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const [name, state] of Object.entries(def.states)) {
    const tool = state.tool;
    if (tool === undefined) continue;
    const path = ['states', name, 'tool'];
    if (state.action_type !== 'mcp_tool') {
      out.push(
        error(
          path,
          'tool: names the tool of an action_type: mcp_tool state',
          'add action_type: mcp_tool (with the server in action:), or remove tool:',
        ),
      );
    } else if (tool.includes('/') && state.action !== undefined) {
      out.push(
        error(
          path,
          `tool: "${tool}" names a server too, and action: names one`,
          'give the server in action: and the tool in tool:, or both in action: "<server>/<tool>"',
        ),
      );
    } else if (state.action !== undefined && state.action.includes('/')) {
      out.push(
        error(
          path,
          `action: "${state.action}" already names a tool`,
          'with tool:, action: is the server alone (action: github, tool: get_issue)',
        ),
      );
    } else if (state.action === undefined && !tool.includes('/')) {
      out.push(
        error(
          path,
          `tool: "${tool}" needs its server`,
          'add action: naming a server of .mcp.json (action: github, tool: get_issue)',
        ),
      );
    } else {
      state.action = state.action === undefined ? tool : `${state.action}/${tool}`;
      delete state.tool;
    }
  }
  return out;
}
