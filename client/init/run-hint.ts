/**
 * After a run of a built-in loop ended in a failure state: the project's own commands for the
 * built-in's parameters, when `ll-loop init` finds some the run did not use (a Python project
 * running test-until-pass with its default `npm test`). A hint printed after the run, never a
 * change to what the run did: the built-in's defaults stay what its file says.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { shellQuote } from '../../fsm/interpolate.js';
import { builtinLoopFile } from '../../loader/catalog.js';
import { resolveLoopFile } from '../../loader/load.js';
import { detectProjectChecks } from './detect.js';
import { proposeLoops } from './proposals.js';

/** The built-in's parameter defaults, as its file says them (undefined when it cannot be read). */
function parameterDefaults(file: string): Record<string, string> | undefined {
  try {
    const doc = parse(readFileSync(file, 'utf8')) as { parameters?: Record<string, { default?: unknown }> };
    return Object.fromEntries(Object.entries(doc.parameters ?? {}).map(([k, p]) => [k, String(p?.default ?? '')]));
  } catch {
    return undefined;
  }
}

/**
 * The hint's lines, or undefined when there is none: `target` is not a built-in run as such (a
 * project loop or a path), the project has no check init would give this built-in, or every
 * parameter it would set was given with --context or equals the default.
 */
export function initHintAfterRun(cwd: string, target: string, contextPairs: readonly string[]): string | undefined {
  const builtin = builtinLoopFile(target);
  if (builtin === undefined) return undefined;
  try {
    if (resolveLoopFile(target, cwd) !== builtin) return undefined;
  } catch {
    return undefined;
  }
  const defaults = parameterDefaults(builtin);
  if (defaults === undefined) return undefined;
  const given = new Set(contextPairs.map((pair) => pair.split('=')[0]));
  const proposal = proposeLoops(detectProjectChecks(cwd)).loops.find((loop) => loop.from === target);
  if (proposal === undefined) return undefined;
  const differ = Object.entries(proposal.parameters).filter(
    ([name, value]) => !given.has(name) && name in defaults && defaults[name] !== value,
  );
  if (differ.length === 0) return undefined;
  const found = differ.map(([name, value]) => `${name} is \`${value}\`, not \`${defaults[name]}\``).join('; ');
  const flags = differ.map(([name, value]) => ` --context ${name}=${shellQuote(value)}`).join('');
  return [
    `hint: for this project ${found} (the built-in's default; found in ${proposal.check.source}):`,
    `      ll-loop run ${target}${flags}`,
    `      or once for all of this project's checks: ll-loop init`,
  ].join('\n');
}
