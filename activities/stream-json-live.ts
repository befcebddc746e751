/**
 * A prompt action's live view: the host CLI prints its work as JSON lines (Claude Code's
 * `--output-format stream-json --verbose`: a `system` init line, `assistant` messages of `text`
 * and `tool_use` blocks, `user` messages of `tool_result` blocks, and a last `result` line, the
 * `json` format's envelope), and the live file (activities/live-output.ts) shows them as a reader
 * wants them: the agent's text, `tool: <name> <short input>`, tool errors, and how it ended.
 *
 * Invariants:
 * - it gets stdout's bytes already masked, and masks what it renders again (a secret escaped in
 *   the JSON was not the bytes the stream masker looked for; parsed, it is);
 * - a line that is not a stream-json message (another host CLI, a crash's text) is shown as it
 *   came; a line cut short by the end of output is shown at {@link StreamJsonLive.end};
 * - memory is bounded: a line longer than {@link MAX_LINE_BYTES} is shown raw as it comes, not
 *   parsed.
 */
import { maskText } from './secret-mask.js';

/** A line longer than this is not held to be parsed (a tool result of a large file). */
const MAX_LINE_BYTES = 1024 * 1024;
/** A tool's input is shown in at most this many characters. */
const TOOL_INPUT_CHARS = 120;
/** A tool error is shown in at most this many characters. */
const TOOL_ERROR_CHARS = 300;

/** Turns stdout's stream-json lines into readable lines, chunk by chunk. */
export class StreamJsonLive {
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** The current line is too long to parse: its bytes pass as they come. */
  private raw = false;
  private sawText = false;

  constructor(private readonly secrets: readonly Buffer[] = []) {}

  /** What the live file shows for this chunk of stdout (empty until a line is complete). */
  stdout(chunk: Buffer): Buffer {
    const out: Buffer[] = [];
    let from = 0;
    for (let nl = chunk.indexOf(10, from); nl !== -1; nl = chunk.indexOf(10, from)) {
      out.push(this.lineEnd(chunk.subarray(from, nl + 1)));
      from = nl + 1;
    }
    const rest = chunk.subarray(from);
    if (rest.length > 0) {
      if (this.raw) out.push(rest);
      else if (this.heldBytes + rest.length > MAX_LINE_BYTES) {
        out.push(...this.held, rest);
        this.held = [];
        this.heldBytes = 0;
        this.raw = true;
      } else {
        this.held.push(rest);
        this.heldBytes += rest.length;
      }
    }
    return Buffer.concat(out);
  }

  /** What the output's last, unterminated line shows. */
  end(): Buffer {
    if (this.raw || this.heldBytes === 0) return Buffer.alloc(0);
    return this.lineEnd(Buffer.alloc(0));
  }

  /** The rendering of the held line completed by `tail` (which ends in a newline, or is empty at the end). */
  private lineEnd(tail: Buffer): Buffer {
    if (this.raw) {
      this.raw = false;
      return tail;
    }
    const line = Buffer.concat([...this.held, tail]);
    this.held = [];
    this.heldBytes = 0;
    const shown = this.render(line.toString('utf8'));
    return shown === undefined ? line : Buffer.from(shown === '' ? '' : `${maskText(shown, this.secrets)}\n`, 'utf8');
  }

  /** A message line's rendering ('' for one that shows nothing), or undefined for a line that is not one. */
  private render(line: string): string | undefined {
    const text = line.trim();
    if (!text.startsWith('{')) return undefined;
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!isRecord(msg) || typeof msg['type'] !== 'string') return undefined;
    switch (msg['type']) {
      case 'system':
        return msg['subtype'] === 'init' && typeof msg['model'] === 'string' ? `[agent: ${msg['model']}]` : '';
      case 'assistant':
        return this.assistant(msg);
      case 'user':
        return toolErrors(msg);
      case 'result':
        return this.result(msg);
      default:
        return '';
    }
  }

  private assistant(msg: Record<string, unknown>): string {
    const lines: string[] = [];
    for (const block of contentBlocks(msg)) {
      if (block['type'] === 'text' && typeof block['text'] === 'string' && block['text'].trim() !== '') {
        lines.push(block['text'].replace(/\n+$/, ''));
        this.sawText = true;
      } else if (block['type'] === 'tool_use' && typeof block['name'] === 'string') {
        const input = toolInput(block['input']);
        lines.push(input === '' ? `tool: ${block['name']}` : `tool: ${block['name']} ${input}`);
      }
    }
    return lines.join('\n');
  }

  /** How the agent ended; its answer too when no text came before it (a host CLI that prints only the envelope). */
  private result(msg: Record<string, unknown>): string {
    const answer = typeof msg['result'] === 'string' && !this.sawText ? msg['result'].replace(/\n+$/, '') : '';
    const how =
      msg['is_error'] === true
        ? `[agent error${typeof msg['subtype'] === 'string' ? `: ${msg['subtype']}` : ''}]`
        : `[agent done${typeof msg['num_turns'] === 'number' ? `: ${msg['num_turns']} turns` : ''}]`;
    return answer === '' ? how : `${answer}\n${how}`;
  }
}

/** A message's content blocks (`message.content`). */
function contentBlocks(msg: Record<string, unknown>): Record<string, unknown>[] {
  const inner = msg['message'];
  const content = isRecord(inner) ? inner['content'] : undefined;
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

/** The failed tool results of a `user` message, one line each. */
function toolErrors(msg: Record<string, unknown>): string {
  return contentBlocks(msg)
    .filter((b) => b['type'] === 'tool_result' && b['is_error'] === true)
    .map((b) => `tool error: ${short(resultText(b['content']), TOOL_ERROR_CHARS)}`)
    .join('\n');
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isRecord)
    .map((c) => (typeof c['text'] === 'string' ? c['text'] : ''))
    .join(' ');
}

/** A tool's input in a few words: its command, path or pattern when it has one, else its JSON. */
function toolInput(input: unknown): string {
  if (!isRecord(input)) return '';
  for (const key of ['command', 'file_path', 'path', 'pattern', 'url', 'query', 'description']) {
    if (typeof input[key] === 'string') return short(input[key], TOOL_INPUT_CHARS);
  }
  return Object.keys(input).length === 0 ? '' : short(JSON.stringify(input), TOOL_INPUT_CHARS);
}

/** `s` on one line, cut to `n` characters with an ellipsis. */
function short(s: string, n: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length <= n ? flat : `${flat.slice(0, n - 1)}…`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
