/**
 * `mcp_result`: judges an mcp_tool state's call from what the worker recorded (seed 001 tier 3).
 *
 * The worker's answer is an exit code in the shell's words (127 not found, 124 timed out, 0 a
 * tool result, anything else the server or transport failed) and, as the output, the result
 * envelope as JSON: the tool's `CallToolResult`, or `{ error }` when there is none.
 */
import type { EvalResult } from '../types.js';
import { evalError } from './error-result.js';
import type { EvalInput } from './eval-input.js';
import type { McpResultConfig } from './pure-config.js';

/** The exit codes the MCP runner uses (activities/mcp-tool.ts). */
export const MCP_EXIT = { ok: 0, failed: 1, timeout: 124, notFound: 127 } as const;

/** success / tool_error / not_found / timeout; details `{ exit_code, envelope }`. */
export function evaluateMcpResult(_config: McpResultConfig, input: EvalInput): EvalResult {
  const envelope = parseEnvelope(input.output);
  const details = { exit_code: input.exitCode, envelope };
  switch (input.exitCode) {
    case MCP_EXIT.notFound:
      return { verdict: 'not_found', details };
    case MCP_EXIT.timeout:
      return { verdict: 'timeout', details };
    case MCP_EXIT.ok:
      if (envelope === null)
        return evalError(
          'the MCP call gave no result envelope (mcp_result judges action_type: mcp_tool states)',
          details,
        );
      return { verdict: envelope.isError === true ? 'tool_error' : 'success', details };
    default: {
      const why =
        typeof envelope?.error === 'string' ? envelope.error : `the MCP call failed with exit code ${input.exitCode}`;
      return evalError(why, details);
    }
  }
}

/** The envelope when the output is a JSON object, else null. */
function parseEnvelope(output: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(output);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
