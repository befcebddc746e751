/**
 * `ll-loop review <name|path> [--json] [--llm …]`: judgement findings about a loop that `validate`
 * accepts (fsm/tools/review/rules.ts), each naming its state and the fix; `--llm` adds an LLM's review
 * (worker/llm-review.ts). Exit 1 when a rule finds an error (or the loop is invalid, or the
 * LLM review asked for failed), else 0. An LLM's findings are advice: they never change the exit code.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { bool, type CommandSpec } from '../command-table.js';
import { LLM_FLAGS, llmFlags } from './llm-flags.js';
import { CliError, UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import type { Finding } from '../../fsm/tools/review/finding.js';
import { reviewLoop } from '../../fsm/tools/review/rules.js';
import { loadLoop } from '../../loader/load.js';
import { printDiagnostics } from '../../reporters/diagnostics.js';
import type { LlmReview } from '../../worker/llm-review.js';

/** The program names that run the host CLI: `claude`, and `LL_HOST_CLI`'s when set. */
function hostClis(env: NodeJS.ProcessEnv): string[] {
  const configured = env['LL_HOST_CLI']?.trim();
  return configured ? ['claude', basename(configured)] : ['claude'];
}

function printFindings(findings: readonly Finding[], out: (t: string) => void): void {
  for (const f of findings) {
    const where = f.state === undefined ? '' : `state "${f.state}": `;
    out(`${f.severity}: ${where}${f.message} [${f.rule}]\n  fix: ${f.fix}\n`);
  }
}

function count(findings: readonly Finding[], severity: Finding['severity']): string {
  const n = findings.filter((f) => f.severity === severity).length;
  return `${n} ${severity}${n === 1 ? '' : 's'}`;
}

export const reviewSpec: CommandSpec = {
  usage:
    'review <name|path> [--json] [--llm [--provider P --model M --base-url U --timeout S]]   judge a loop and suggest fixes',
  flags: { json: { type: 'boolean' }, ...LLM_FLAGS },
  async run(ctx) {
    const target = ctx.positionals[0];
    if (target === undefined) throw new UsageError('review needs a loop name or path', 'll-loop review <name>');
    const { llm, override, timeoutS } = llmFlags(ctx, `ll-loop review ${target}`);
    const json = bool(ctx, 'json');
    const loaded = loadLoop(target, ctx.cwd);
    if (!loaded.definition) {
      printDiagnostics(loaded.diagnostics, json, ctx.out, ctx.err);
      throw new CliError(
        `${loaded.file} is not a valid loop; nothing was reviewed`,
        `fix the errors above (ll-loop validate ${target} shows them), then review it`,
        EXIT.usage,
      );
    }
    const def = loaded.definition;
    const findings = reviewLoop(def, { hostClis: hostClis(process.env) });
    let asked: LlmReview | undefined;
    if (llm)
      asked = await (
        await import('../../worker/llm-review.js')
      ).llmReview({
        def,
        source: readFileSync(loaded.file, 'utf8'),
        found: findings,
        cwd: ctx.cwd,
        override,
        ...(timeoutS === undefined ? {} : { timeoutS }),
        env: process.env,
      });
    const failed = findings.some((f) => f.severity === 'error') || (asked !== undefined && 'error' in asked);
    if (json) {
      ctx.out(
        `${JSON.stringify({ file: loaded.file, findings, ...(asked === undefined ? {} : { llm: asked }) }, null, 2)}\n`,
      );
      return failed ? EXIT.usage : EXIT.ok;
    }
    printFindings(findings, ctx.out);
    const summary = `${def.name}: ${count(findings, 'error')}, ${count(findings, 'warning')}`;
    if (findings.some((f) => f.severity === 'error')) ctx.err(`✗ ${summary}\n`);
    else ctx.out(`${findings.length ? '✓' : '✓ nothing to improve:'} ${summary}\n`);
    if (asked !== undefined && 'error' in asked) ctx.err(`LLM review failed: ${asked.error}\n  fix: ${asked.fix}\n`);
    else if (asked !== undefined) {
      ctx.out(
        `\nLLM review (${asked.findings.length} finding${asked.findings.length === 1 ? '' : 's'}, advice only):\n`,
      );
      printFindings(asked.findings, ctx.out);
    }
    return failed ? EXIT.usage : EXIT.ok;
  },
};
