/**
 * A steering file (`program.md`, little-loops' `--program-md`): Markdown whose `##` sections
 * become context values of a run. `## Directive`, `## Budget` and `## Constraints` give
 * `directive`, `budget` and `constraints` (the section's text); `## Targets` gives `targets` (its
 * list items joined by spaces, else its text); each `key: value` line of `## Benchmark` gives
 * `key`. Headings match whatever their case; other sections are notes and give nothing.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from '../../errors/errors.js';

/** The sections whose whole text is a value, and the key each gives. */
const PROSE: Record<string, string> = { directive: 'directive', budget: 'budget', constraints: 'constraints' };

/** Each `## Heading`'s text (trimmed), by the heading in lower case; the first of a name wins. */
function sections(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let heading: string | undefined;
  let body: string[] = [];
  const close = () => {
    if (heading !== undefined && !out.has(heading)) out.set(heading, body.join('\n').trim());
  };
  for (const line of text.split(/\r?\n/)) {
    const m = /^##\s+(.+?)\s*#*\s*$/.exec(line);
    if (m && !line.startsWith('###')) {
      close();
      heading = m[1]!.toLowerCase();
      body = [];
    } else if (heading !== undefined) body.push(line);
  }
  close();
  return out;
}

/** The context values a steering file's text gives, as `[key, value]` in the file's order of sections. */
export function programMdValues(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [heading, body] of sections(text)) {
    if (body === '') continue;
    const prose = PROSE[heading];
    if (prose) out.push([prose, body]);
    else if (heading === 'targets') {
      const items = body
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => /^[-*]\s/.test(l) || l === '-' || l === '*')
        .map((l) => l.replace(/^[-*]\s*/, '').trim())
        .filter((l) => l !== '');
      out.push(['targets', items.length ? items.join(' ') : body]);
    } else if (heading === 'benchmark') {
      for (const line of body.split('\n')) {
        const at = line.indexOf(':');
        if (at <= 0) continue;
        const key = line
          .slice(0, at)
          .replace(/^\s*[-*]\s*/, '')
          .trim();
        const value = line.slice(at + 1).trim();
        if (key !== '' && value !== '' && key !== '__proto__' && !key.includes('=')) out.push([key, value]);
      }
    }
  }
  return out;
}

/**
 * The steering file a run reads: `--program-md PATH` (relative to where the command was typed;
 * refused when it is no readable file), else the project's `.ll/program.md` when there is one.
 */
export function programMdFile(given: string | undefined, invokedIn: string, root: string): string | undefined {
  if (given === undefined) {
    const file = join(root, '.ll', 'program.md');
    return existsSync(file) && statSync(file).isFile() ? file : undefined;
  }
  const file = resolve(invokedIn, given);
  if (!existsSync(file) || !statSync(file).isFile())
    throw new UsageError(
      `--program-md ${given}: ${file} ${existsSync(file) ? 'is not a file' : 'does not exist'}`,
      'give the path of a Markdown steering file (## Directive, ## Targets, ## Benchmark, ## Budget, ## Constraints), relative to where you run ll-loop',
    );
  return file;
}

/** The values of the steering file at `file`. */
export function readProgramMd(file: string, flag: string): Array<[string, string]> {
  try {
    return programMdValues(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${file} (${(err as Error).message})`, 'give a readable Markdown file');
  }
}
