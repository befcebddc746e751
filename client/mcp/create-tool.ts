/**
 * The MCP tool `create_loop`: `ll-loop create --describe` for an agent. The LLM drafts the loop
 * (client/create/describe-run.ts: validated and simulated, asked again with its problems); a
 * valid draft is saved to `.loops/<name>.yaml` (never over an existing loop), or only returned
 * with `dry_run`. Changes a file, so not served with `--read-only`; not destructive: it never
 * overwrites.
 */
import { z } from 'zod';
import { DEFAULT_DRAFT_TIMEOUT_MS, draftDescribed } from '../create/describe-run.js';
import { saveLoop } from '../create/save.js';
import { registerTool, type ToolHost } from './tool-kit.js';

export function registerCreateTool(host: ToolHost, cwd: string, env: NodeJS.ProcessEnv): void {
  registerTool(host, {
    name: 'create_loop',
    title: 'Create a loop from a description',
    description:
      'An LLM drafts a loop from a description (the host CLI, or an API provider); the draft is validated and simulated, and saved to .loops/<name>.yaml unless dry_run. Never overwrites a loop.',
    input: {
      description: z.string().describe('what the loop should do: what it runs, what it checks, when it stops'),
      name: z.string().optional().describe("the loop's name (default: the draft's own, or a free one)"),
      provider: z.enum(['host-cli', 'anthropic', 'openai-compatible']).optional(),
      model: z.string().optional(),
      base_url: z.string().optional().describe("an openai-compatible provider's URL"),
      timeout_s: z.number().positive().optional().describe('how long one ask may take (default 300)'),
      dry_run: z.boolean().optional().describe('return the draft without saving it'),
    },
    output: {
      name: z.string(),
      yaml: z.string(),
      saved: z.boolean(),
      file: z.string().optional().describe('where it was saved'),
      cost: z.string().describe('what drafting cost'),
    },
    readOnly: false,
    run: async ({ description, name, provider, model, base_url, timeout_s, dry_run }) => {
      const dryRun = dry_run === true;
      const drafted = await draftDescribed({
        cwd,
        description,
        ...(name === undefined ? {} : { name }),
        ...(provider === undefined ? {} : { provider }),
        ...(model === undefined ? {} : { model }),
        ...(base_url === undefined ? {} : { baseUrl: base_url }),
        timeoutMs: timeout_s === undefined ? DEFAULT_DRAFT_TIMEOUT_MS : timeout_s * 1000,
        force: false,
        dryRun,
        confirmable: true,
        env,
        // Progress is for a terminal; the tool's answer carries the cost.
        note: () => undefined,
      });
      const base = { name: drafted.name, yaml: drafted.yaml, cost: drafted.cost };
      if (dryRun) return { ...base, saved: false };
      return { ...base, saved: true, file: saveLoop(drafted.yaml, cwd, drafted.name, false) };
    },
  });
}
