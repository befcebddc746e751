/**
 * `ll-loop compile <name|path> [-o out.yaml]`: the FSM a loop file becomes — a paradigm compiled,
 * `from:` and fragments expanded — as YAML on stdout or in a file. The file is loaded exactly as
 * `run` and `validate` load it, so a bad file gets the same diagnostics (and exit code 1); the
 * YAML printed is the document before defaults are applied, so it reads like a hand-written loop
 * and runs as one (`ll-loop run out.yaml`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { compileParadigm } from '../../fsm/definition/paradigms/index.js';
import { str, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { toFsmYaml } from '../../loader/fsm-yaml.js';
import { loadLoop } from '../../loader/load.js';
import { expandReuse } from '../../loader/reuse.js';
import { printDiagnostics } from '../../reporters/diagnostics.js';

/**
 * The authoring stages of loader/load.ts (reuse, then the paradigm) without validation and
 * defaults. Only called on a file `loadLoop` accepted, so none of them can fail here.
 */
function compiledDocument(file: string, cwd: string): Record<string, unknown> {
  const raw = parseDocument(readFileSync(file, 'utf8'), { version: '1.2' }).toJS({ maxAliasCount: 100 }) as Record<
    string,
    unknown
  >;
  const reused = expandReuse(raw, file, cwd);
  const compiled = reused.raw ? compileParadigm(reused.raw) : undefined;
  if (!compiled?.raw) throw new Error(`internal: ${file} loaded but did not compile again`);
  return compiled.raw;
}

function header(file: string, cwd: string, source: Record<string, unknown>): string {
  const how = typeof source.paradigm === 'string' ? ` (paradigm: ${source.paradigm})` : '';
  return `# Compiled by ll-loop compile from ${relative(cwd, file) || file}${how}.\n# Edit the source and compile again; this file runs as it is: ll-loop run <this file>\n`;
}

export const compileSpec: CommandSpec = {
  usage: 'compile <name|path> [-o out.yaml]           print the FSM a loop file compiles to',
  flags: { output: { type: 'string', short: 'o' } },
  run(ctx) {
    const target = ctx.positionals[0];
    if (target === undefined)
      throw new UsageError('compile needs a loop name or path', 'll-loop compile <name|path> [-o out.yaml]');
    if (ctx.positionals.length > 1)
      throw new UsageError(
        `compile takes one loop, got ${ctx.positionals.length}: ${ctx.positionals.join(' ')}`,
        'll-loop compile <name|path> [-o out.yaml]',
      );
    const loaded = loadLoop(target, ctx.cwd);
    printDiagnostics(loaded.diagnostics, false, ctx.out, ctx.err);
    if (!loaded.definition) {
      const errors = loaded.diagnostics.filter((d) => d.severity === 'error').length;
      ctx.err(`✗ ${loaded.file}: ${errors} error${errors === 1 ? '' : 's'}; nothing compiled\n`);
      return EXIT.usage;
    }
    const source = parseDocument(readFileSync(loaded.file, 'utf8'), { version: '1.2' }).toJS() as Record<
      string,
      unknown
    >;
    const yaml = header(loaded.file, ctx.cwd, source) + toFsmYaml(compiledDocument(loaded.file, ctx.cwd));
    const output = str(ctx, 'output');
    if (output === undefined) {
      ctx.out(yaml);
      return EXIT.ok;
    }
    const path = resolve(ctx.invokedIn ?? ctx.cwd, output);
    try {
      writeFileSync(path, yaml);
    } catch (err) {
      throw new UsageError(
        `cannot write ${output}: ${(err as Error).message}`,
        'pass -o a path in an existing, writable directory',
      );
    }
    ctx.out(
      `✓ compiled ${relative(ctx.cwd, loaded.file) || loaded.file} → ${output} (${Object.keys(loaded.definition.states).length} states)\n`,
    );
    return EXIT.ok;
  },
};
