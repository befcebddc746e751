/**
 * Rendering a shell action so that interpolated data can never become shell syntax.
 *
 * The rule (docs/loop-format.md "Interpolation in shell actions"):
 * - `context`, `state` and `loop` values are written by the loop's author and are spliced into
 *   the script as code: `action: "${context.metric_cmd}"` runs the command the author wrote.
 * - `captured`, `prev` and `result` values come from what actions printed. They are never spliced:
 *   the script references a bash variable (`${LL_V1}`) and the value travels in the child's
 *   environment, so `"; rm -rf x; "`, `$(…)` or backticks arrive as plain data.
 * - Context keys bound from a parent loop's run-time data (`with: { x: "${captured.y.output}" }`)
 *   are data too (`scope.dataContext`), and so are keys given with `--context` on the command line
 *   (except `command` parameters) in runs that carry them (LoopWorkflowInput.dataContext).
 * - `${env.NAME}` becomes a reference too (`${LL_E1}`); the worker looks the value up when the
 *   action runs, so secrets never enter workflow history.
 * - Inside a quoted here-document (`cat <<'EOF'`) bash expands nothing, so a variable cannot
 *   reach it: a data value is written into the body verbatim (no character of it is code there),
 *   unless a line of it would close the here-document (`spliceIntoQuotedHeredoc`).
 *
 * Each reference is written to fit the quoting where it appears: `${LL_V1}` unquoted or inside
 * double quotes (bash expands variables there without re-parsing them; unquoted values are split
 * into words like the text they stand for), and `'"${LL_V1}"'` inside single quotes, which closes
 * the quote, expands, and reopens it. So the seed's `echo 'Fixed: ${result.details.reason}'` prints
 * the reason verbatim, whatever it contains.
 */
import { envRefOf, InterpolationError, resolveRef, resolveValue, type InterpolationScope } from './interpolate.js';
import { parseTemplate, type RefSegment } from './template.js';
import type { ShellCommand } from './types.js';

type Quote = 'plain' | 'single' | 'double' | 'ansi' | 'backtick' | 'subst' | 'arith' | 'cond';

const TRUSTED = new Set(['context', 'state', 'loop']);

/** Tracks bash quoting across the script as it is assembled. */
class QuoteTracker {
  private readonly stack: Quote[] = ['plain'];
  private parenDepth: number[] = [];
  private escaped = false;
  /** Characters already consumed by a multi-character token (`$((`, `((`, `[[`, `]]`, `))`). */
  private skip = 0;
  /** Whether `prev` was escaped (`\$'` is not ANSI-C quoting). */
  private prevEscaped = false;
  private comment = false;
  private prev = '\n';
  /** A pending here-document: its delimiter and whether it was quoted (no expansion inside). */
  private pendingHeredoc: { delimiter: string; quoted: boolean } | null = null;
  private heredoc: { delimiter: string; quoted: boolean; line: string; data: string | null } | null = null;
  /** The reference whose spliced value was on the line that closed a here-document, if any. */
  closedByData: string | null = null;
  private heredocWord = '';
  private readingHeredocWord = false;

  get top(): Quote {
    return this.stack[this.stack.length - 1] ?? 'plain';
  }

  /** Where a reference lands now: a quote context, or inside a here-document body. */
  get context(): Quote | 'heredoc' | 'quoted-heredoc' {
    if (this.heredoc) return this.heredoc.quoted ? 'quoted-heredoc' : 'heredoc';
    return this.top;
  }

  /**
   * True inside bash arithmetic (`$((…))`, `((…))`), where the *contents* of a variable are
   * evaluated as an expression, and `a[$(cmd)]` in them runs `cmd`. Data may not go there.
   */
  inArithmetic(): boolean {
    for (let i = this.stack.length - 1; i >= 0; i -= 1) {
      const q = this.stack[i];
      if (q === 'arith') return true;
      if (q === 'subst' || q === 'backtick') return false;
    }
    return false;
  }

  /** True inside `[[ … ]]`, where `-eq` and friends evaluate operands as arithmetic. */
  inConditional(): boolean {
    return this.stack.includes('cond');
  }

  feed(text: string): void {
    for (let i = 0; i < text.length; i += 1) this.char(text[i] as string, text[i + 1], text[i + 2]);
  }

  private char(c: string, next: string | undefined, next2?: string): void {
    if (this.skip > 0) {
      this.skip -= 1;
      this.prev = c;
      return;
    }
    if (this.heredoc) return this.heredocChar(c);
    if (this.readingHeredocWord) {
      if (!this.heredocWord && (c === '<' || c === '-')) {
        // `<<<` is a here-string, not a here-document; `<<-` only strips leading tabs.
        if (c === '<') this.readingHeredocWord = false;
        this.prev = c;
        return;
      }
      if (/[\s;&|<>()]/.test(c) && this.heredocWord) {
        const quoted = /['"\\]/.test(this.heredocWord);
        this.pendingHeredoc = { delimiter: this.heredocWord.replace(/['"\\]/g, ''), quoted };
        this.readingHeredocWord = false;
      } else if (!/\s/.test(c)) {
        this.heredocWord += c;
        this.prev = c;
        return;
      }
    }
    if (this.comment) {
      if (c === '\n') this.comment = false;
      else return;
    }
    if (this.escaped) {
      this.escaped = false;
      this.prev = c;
      this.prevEscaped = true;
      return;
    }
    this.structural(c, next, next2);
    this.prevEscaped = false;
    if (c === '\n' && (this.top === 'plain' || this.top === 'subst') && this.pendingHeredoc) {
      this.heredoc = { ...this.pendingHeredoc, line: '', data: null };
      this.pendingHeredoc = null;
    }
    this.prev = c;
  }

  private structural(c: string, next: string | undefined, next2: string | undefined): void {
    const top = this.top;
    if (top === 'arith') return this.arithmetic(c, next, next2);
    if (top === 'single') {
      if (c === "'") this.stack.pop();
      return;
    }
    if (c === '\\') {
      this.escaped = true;
      return;
    }
    if (top === 'ansi') {
      if (c === "'") this.stack.pop();
      return;
    }
    if (top === 'double') {
      if (c === '"') this.stack.pop();
      else if (c === '$' && next === '(' && next2 === '(') this.openArith(2);
      else if (c === '$' && next === '(') this.openSubst();
      else if (c === '`') this.stack.push('backtick');
      return;
    }
    // plain, subst, backtick, cond: shell syntax proper.
    const wordStart = /[\s;&|()]/.test(this.prev);
    if (top === 'cond' && c === ']' && next === ']') {
      this.stack.pop();
      this.skip = 1;
    } else if (c === '#' && wordStart) this.comment = true;
    else if (c === '$' && next === '(' && next2 === '(') this.openArith(2);
    else if (c === '(' && next === '(' && wordStart) this.openArith(1);
    else if (c === '[' && next === '[' && wordStart) {
      this.stack.push('cond');
      this.skip = 1;
    } else if (c === "'") this.stack.push(this.prev === '$' && !this.prevEscaped ? 'ansi' : 'single');
    else if (c === '"') this.stack.push('double');
    else if (c === '`') top === 'backtick' ? this.stack.pop() : this.stack.push('backtick');
    else if (c === '$' && next === '(') this.openSubst();
    else if (c === '(' && top === 'subst') this.parenDepth[this.parenDepth.length - 1]! += 1;
    else if (c === ')' && top === 'subst') this.closeParen();
    else if (c === '<' && this.prev === '<' && (top === 'plain' || top === 'subst')) {
      this.readingHeredocWord = true;
      this.heredocWord = '';
    }
  }

  private openArith(consumed: number): void {
    this.stack.push('arith');
    this.parenDepth.push(0);
    this.skip = consumed;
  }

  /** Inside arithmetic: nested parentheses, `$(…)`, and the closing `))`. */
  private arithmetic(c: string, next: string | undefined, next2: string | undefined): void {
    const depth = this.parenDepth.length - 1;
    if (c === '$' && next === '(' && next2 === '(') this.openArith(2);
    else if (c === '$' && next === '(') this.openSubst();
    else if (c === '(') this.parenDepth[depth]! += 1;
    else if (c === ')' && (this.parenDepth[depth] ?? 0) > 0) this.parenDepth[depth]! -= 1;
    else if (c === ')' && next === ')') {
      this.parenDepth.pop();
      this.stack.pop();
      this.skip = 1;
    }
  }

  private openSubst(): void {
    this.stack.push('subst');
    this.parenDepth.push(-1); // the `(` that follows brings it to 0
  }

  private closeParen(): void {
    const depth = this.parenDepth.length - 1;
    if ((this.parenDepth[depth] ?? 0) > 0) this.parenDepth[depth]! -= 1;
    else {
      this.parenDepth.pop();
      this.stack.pop();
    }
  }

  /** The text fed next is data spliced into a here-document body: its line may not close it. */
  markData(raw: string): void {
    if (this.heredoc) this.heredoc.data = raw;
  }

  private heredocChar(c: string): void {
    const doc = this.heredoc!;
    if (c !== '\n') {
      doc.line += c;
      return;
    }
    if (doc.line.replace(/^\t+/, '') === doc.delimiter) {
      if (doc.data !== null) this.closedByData ??= doc.data;
      this.heredoc = null;
    } else {
      doc.line = '';
      doc.data = null;
    }
  }
}

/** Data in arithmetic would be evaluated by bash as an expression, and could run commands. */
function arithmeticError(ref: RefSegment): InterpolationError {
  return new InterpolationError(
    `${ref.raw} is used in bash arithmetic ($((…)), ((…)) or [[ … -eq … ]]), where bash evaluates the value as ` +
      `an expression and could run commands hidden in it; compare with [ "${ref.raw}" -eq N ] instead, ` +
      `or judge the number with an output_numeric evaluator`,
    ref.raw,
    'syntax',
  );
}

/**
 * A data value inside a quoted here-document (`cat <<'EOF'`) is written into the body as it is:
 * bash expands nothing there, so no character of it can become code, and the body holds exactly
 * the value, as little-loops wrote it. The one way out is a line equal to the delimiter, which
 * ends the body and makes the lines after it commands; a value that puts the delimiter on a line
 * of its own is refused (checked once the script is whole, see `heredocCloseError`).
 */
function spliceIntoQuotedHeredoc(
  ref: RefSegment,
  value: string,
  tracker: QuoteTracker,
  append: (code: string) => void,
): void {
  const lines = value.split('\n');
  lines.forEach((line, i) => {
    tracker.markData(ref.raw);
    append(i < lines.length - 1 ? `${line}\n` : line);
  });
}

/** A data value closed its quoted here-document: what followed would run as commands. */
function heredocCloseError(raw: string): InterpolationError {
  return new InterpolationError(
    `the value of ${raw} ends its quoted here-document: a line of it is the here-document's delimiter, ` +
      `so the lines after it would run as commands; choose a delimiter the value cannot contain, ` +
      `such as <<'LL_END_7f3a'`,
    raw,
    'syntax',
  );
}

/**
 * The bash text that stands for variable `name` at the current quoting. A `${…:shell}` reference
 * outside quotes is one word (`"${LL_V1}"`), as little-loops' shell quoting made it.
 */
function reference(name: string, where: QuoteTracker['context'], ref: RefSegment): string {
  if (ref.shell && where === 'plain') return `"\${${name}}"`;
  switch (where) {
    case 'single':
      return `'"\${${name}}"'`;
    case 'ansi':
      return `'"\${${name}}"$'`;
    case 'quoted-heredoc':
      // Only `${env.*}` gets here: data is spliced (see render). A secret's value may not be
      // written into the script, which is recorded in the run's history.
      throw new InterpolationError(
        `${ref.raw} is inside a quoted here-document (<<'EOF'), where bash expands nothing, and a ` +
          `secret is never written into the script; use an unquoted delimiter (<<EOF)`,
        ref.raw,
        'syntax',
      );
    default:
      return `\${${name}}`;
  }
}

/**
 * Interpolate a shell action. Data values and env references become bash variables (see the
 * module comment); author-controlled values are spliced as code.
 */
export function renderShell(template: string, scope: InterpolationScope): ShellCommand {
  // A `${…:shell}` value travels as data like captured values: its variable holds the text itself.
  return render(template, (ref) => (ref.shell ? resolveValue(ref, scope) : resolveRef(ref, scope)), scope.dataContext);
}

/**
 * Check a shell action's placement of data before any value exists (validation): returns the
 * problem (data in arithmetic, in a quoted here-document) or undefined. Values that are not known
 * yet render as their reference, which has the same shape as far as quoting is concerned.
 */
export function checkShellTemplate(template: string, context: Record<string, unknown>): string | undefined {
  try {
    render(template, (ref) => {
      if (ref.namespace !== 'context') return ref.raw;
      const value = ref.path.length === 1 ? context[ref.path[0]!] : undefined;
      return typeof value === 'string' ? value : ref.raw;
    });
    return undefined;
  } catch (err) {
    return err instanceof InterpolationError ? err.message : undefined;
  }
}

function render(
  template: string,
  resolve: (ref: RefSegment) => string,
  dataContext: readonly string[] = [],
): ShellCommand {
  const trusted = (ref: RefSegment): boolean =>
    ref.shell !== true &&
    TRUSTED.has(ref.namespace) &&
    !(ref.namespace === 'context' && dataContext.includes(ref.path[0] ?? ''));
  const tracker = new QuoteTracker();
  const command: ShellCommand = { script: '', vars: {}, env: {} };
  let counter = 0;
  const conditionals: Array<{ at: number; ref: RefSegment }> = [];
  const append = (code: string) => {
    command.script += code;
    tracker.feed(code);
  };
  for (const segment of parseTemplate(template)) {
    if (segment.kind === 'text') {
      append(segment.text);
      continue;
    }
    if (trusted(segment)) {
      append(resolve(segment));
      continue;
    }
    if (segment.namespace !== 'env' && tracker.context === 'quoted-heredoc') {
      spliceIntoQuotedHeredoc(segment, resolve(segment), tracker, append);
      continue;
    }
    counter += 1;
    const isEnv = segment.namespace === 'env';
    const name = isEnv ? `LL_E${counter}` : `LL_V${counter}`;
    if (isEnv) command.env[name] = envRefOf(segment);
    else command.vars[name] = resolve(segment);
    if (!isEnv && tracker.inArithmetic()) throw arithmeticError(segment);
    if (!isEnv && tracker.inConditional()) conditionals.push({ at: command.script.length, ref: segment });
    // A reference is plain text to the tracker: it never changes the quoting around it.
    command.script += reference(name, tracker.context, segment);
  }
  if (tracker.closedByData !== null) throw heredocCloseError(tracker.closedByData);
  for (const { at, ref } of conditionals) {
    const open = command.script.lastIndexOf('[[', at);
    const close = command.script.indexOf(']]', at);
    const body = command.script.slice(open, close < 0 ? undefined : close);
    if (/\s-(eq|ne|lt|le|gt|ge)\b/.test(body)) throw arithmeticError(ref);
  }
  return command;
}
