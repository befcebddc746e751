/**
 * What a generated state does: a shell command, or a prompt for the host CLI (`claude` unless
 * LL_HOST_CLI says otherwise). Checks and metrics are always shell commands; fixes and sequence
 * steps are prompts unless written `shell: <command>`.
 */
import { textKind } from '../../fsm/action.js';
import { UsageError } from '../../errors/errors.js';

export type ActionKind = 'shell' | 'prompt';

export interface ActionSpec {
  text: string;
  kind: ActionKind;
}

/** The prefix that makes a `--fix`/`--step` value (or a wizard answer) a shell command. */
export const SHELL_PREFIX = 'shell:';

export function shell(text: string): ActionSpec {
  return { text, kind: 'shell' };
}

export function prompt(text: string): ActionSpec {
  return { text, kind: 'prompt' };
}

/**
 * `--fix`/`--step` values: `shell: make fix` is a shell command; anything else is a prompt for the
 * host CLI (a leading `/` makes it a slash command, which is a prompt too).
 */
export function parseActionArg(value: string, flag: string): ActionSpec {
  const trimmed = value.trim();
  const isShell = trimmed.toLowerCase().startsWith(SHELL_PREFIX);
  const text = isShell ? trimmed.slice(SHELL_PREFIX.length).trim() : trimmed;
  if (text === '') {
    throw new UsageError(
      `${flag} needs ${isShell ? 'a command after "shell:"' : 'a prompt or "shell: <command>"'}`,
      `e.g. ${flag} "Fix the failing tests" or ${flag} "shell: npm run lint -- --fix"`,
    );
  }
  return isShell ? shell(text) : prompt(text);
}

/**
 * How the loop format would run `text` without an `action_type` (fsm/action.ts): a leading
 * single-segment `/word` is a slash command (a prompt), anything else is shell.
 */
function inferredKind(text: string): ActionKind {
  return textKind(text);
}

/** The `action_type` a state needs so `text` runs as `kind`, or undefined when inference agrees. */
export function actionTypeFor(spec: ActionSpec): ActionKind | undefined {
  return inferredKind(spec.text) === spec.kind ? undefined : spec.kind;
}
