/**
 * How the MCP server's tools are declared and served: each tool's input and output are zod
 * shapes (the SDK turns them into the JSON Schemas clients see), its annotations say whether it
 * only reads (`readOnlyHint`) or changes something (`destructiveHint` where it ends or alters a
 * run), and its work is a typed function whose result is the structured output. A tool's failure
 * is a tool result with `isError` whose text is the error and its fix, never a crash of the
 * server; `--read-only` registers only the tools that read.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { CliError, toCliError } from '../../errors/errors.js';
import { LoadError } from '../../loader/errors.js';

type Shape = z.ZodRawShape;

/** One tool: its schemas, whether it only reads, and its work. */
export interface ToolSpec<I extends Shape, O extends Shape> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  /** Reads only: served with `--read-only`, annotated `readOnlyHint`. */
  readOnly: boolean;
  /** Ends, replaces or changes a run or a file the user has (annotated `destructiveHint`). */
  destructive?: boolean;
  /** Asking again changes nothing more (annotated `idempotentHint`). */
  idempotent?: boolean;
  /** Its result, checked against `output` by the SDK before it is sent. */
  run(args: z.infer<z.ZodObject<I>>): Promise<object> | object;
}

/** Where tools go, and which: the server and whether it serves only the read-only ones. */
export interface ToolHost {
  server: McpServer;
  readOnly: boolean;
}

/** A tool's error as the client sees it: the message, then `fix: …` when there is one. */
function errorResult(err: unknown): CallToolResult {
  const e = toCliError(err);
  const message = e instanceof Error ? e.message : String(e);
  const fix = e instanceof CliError || e instanceof LoadError ? e.fix : undefined;
  const text = fix ? `error: ${message}\nfix: ${fix}` : `error: ${message}`;
  return { isError: true, content: [{ type: 'text', text }], _meta: { fix: fix ?? null } };
}

/** Register `spec` on the host's server (unless it changes something and the server is read-only). */
export function registerTool<I extends Shape, O extends Shape>(host: ToolHost, spec: ToolSpec<I, O>): void {
  if (host.readOnly && !spec.readOnly) return;
  host.server.registerTool(
    spec.name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema: spec.input,
      // Loose: the declared fields are checked, and a report may carry more.
      outputSchema: z.looseObject(spec.output),
      annotations: {
        title: spec.title,
        readOnlyHint: spec.readOnly,
        destructiveHint: !spec.readOnly && spec.destructive === true,
        idempotentHint: spec.readOnly || spec.idempotent === true,
        openWorldHint: false,
      },
    },
    // The SDK's callback type is generic over the shape; the spec's types are checked above.
    (async (args: z.infer<z.ZodObject<I>>): Promise<CallToolResult> => {
      try {
        const result = await spec.run(args);
        return {
          structuredContent: result as Record<string, unknown>,
          content: [{ type: 'text', text: JSON.stringify(result, null, 2) }],
        };
      } catch (err) {
        return errorResult(err);
      }
    }) as never,
  );
}

/** A report object: its main fields declared, any others allowed (reports grow fields). */
export const report = <S extends Shape>(shape: S) => z.looseObject(shape);
