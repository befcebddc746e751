/**
 * The "How to run" and "Parameters" sections of `ll-loop show`: commands a user can paste.
 * A loop's own `commands:` list (seed 001) replaces the generated commands entirely.
 */
import type { LoopDefinition } from '../../fsm/schema.js';
import { table } from '../../reporters/table.js';
import { oneLine } from '../../fsm/format.js';
import { printable } from './describe.js';

/** How the user named the loop, and where it came from. */
export interface ShowTarget {
  /** The name or path as it should appear in commands (a name, or the path the user gave). */
  arg: string;
  /** The loop is a built-in (not in `.loops/`): `ll-loop install` can copy it. */
  builtin: boolean;
}

interface Command {
  cmd: string;
  comment?: string;
}

/** Words that need no quoting in a POSIX shell; anything else is single-quoted. */
const SHELL_SAFE = /^[A-Za-z0-9_./:=@%+,-]+$/;

function shellQuote(word: string): string {
  return SHELL_SAFE.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Parameter descriptions are cut to one line of this many characters. */
const DESCRIPTION_MAX = 60;
/** Characters of a parameter's value shown (longer ones end in …). */
const VALUE_MAX = 60;

type Parameter = NonNullable<LoopDefinition['parameters']>[string];

/** Required parameters without a default: a run cannot start without them (`--context NAME=…`). */
function requiredParameters(def: LoopDefinition): string[] {
  return Object.entries(def.parameters ?? {})
    .filter(([, spec]) => spec.required && spec.default === undefined)
    .map(([name]) => name);
}

/** The generated commands: run (with required parameters), dry run, validate, Mermaid, install. */
function defaultCommands(def: LoopDefinition, target: ShowTarget): Command[] {
  const arg = shellQuote(target.arg);
  const required = requiredParameters(def);
  const context = required.map((name) => ` --context ${shellQuote(name)}=…`).join('');
  const commands: Command[] = [
    {
      cmd: `ll-loop run ${arg}${context}`,
      comment: required.length ? `run it (required: ${required.join(', ')})` : 'run it',
    },
    { cmd: `ll-loop run ${arg}${context} --dry-run`, comment: 'print the execution plan; nothing runs' },
    { cmd: `ll-loop validate ${arg}`, comment: 'check the file again after editing' },
    { cmd: `ll-loop show ${arg} --format mermaid`, comment: 'this diagram for Markdown/GitHub' },
  ];
  if (target.builtin) commands.push({ cmd: `ll-loop install ${arg}`, comment: 'copy it into .loops/ to edit it' });
  return commands;
}

/** The section's lines: commands aligned, comments after `#`. */
export function renderCommands(def: LoopDefinition, target: ShowTarget): string[] {
  const commands = def.commands ?? defaultCommands(def, target);
  const width = Math.max(0, ...commands.map((c) => [...printable(c.cmd)].length));
  return commands.map((c) => {
    const cmd = printable(c.cmd);
    if (c.comment === undefined || c.comment === '') return `  ${cmd}`;
    return `  ${cmd}${' '.repeat(width - [...cmd].length)}  # ${printable(c.comment)}`;
  });
}

function typeText(spec: Parameter): string {
  return spec.type === 'enum' && spec.values?.length ? spec.values.join('|') : spec.type;
}

function defaultText(name: string, spec: Parameter, def: LoopDefinition): string {
  // The loaded context holds the bound value (default or `--context`), already resolved.
  const value = Object.hasOwn(def.context, name) ? def.context[name] : spec.default;
  if (value === undefined) return spec.required ? 'required' : '—';
  return printable(typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value)));
}

/** The parameters table (empty when the loop declares none). */
export function renderParameters(def: LoopDefinition): string[] {
  const entries = Object.entries(def.parameters ?? {});
  if (entries.length === 0) return [];
  const rows = [
    ['NAME', 'TYPE', 'VALUE', 'DESCRIPTION'],
    ...entries.map(([name, spec]) => [
      printable(name),
      typeText(spec),
      // A long value (a command) is cut: the table stays readable; `show --json` has all of it.
      oneLine(defaultText(name, spec, def), VALUE_MAX),
      oneLine(printable(spec.description ?? ''), DESCRIPTION_MAX),
    ]),
  ];
  return table(rows)
    .trimEnd()
    .split('\n')
    .map((line) => `  ${line}`);
}
