/**
 * The host CLI's JSON envelope: what `claude -p --output-format json` prints when it is done, one
 * object such as
 *
 *   {"type":"result","subtype":"success","is_error":false,"duration_ms":3952,"num_turns":1,
 *    "result":"…the answer…","session_id":"…","total_cost_usd":0.1046,
 *    "usage":{"input_tokens":2,"cache_creation_input_tokens":7924,"cache_read_input_tokens":13368,"output_tokens":9}}
 *
 * (with `--verbose`, an array of the session's messages whose last `type: "result"` is this; with
 * `--output-format stream-json`, the messages one JSON object a line, the envelope the last of them).
 * Error subtypes (`error_max_turns`, `error_during_execution`) carry `is_error` and may lack `result`.
 *
 * Invariant: anything else on stdout (another host CLI, a fake, a crash's text) is not an
 * envelope — {@link fromEnvelope} leaves such a result as printed, with no usage, never an error.
 */
import { readFileSync, statSync } from 'node:fs';
import type { ActionResult, LlmUsage } from '../fsm/types.js';
import { STDOUT_TAIL_BYTES } from './process.js';
import { maskText } from './secret-mask.js';

/** What ll-loop reads from an envelope. */
export interface HostEnvelope {
  /** `result`: the answer's text (absent on some error subtypes). */
  text?: string;
  /** `result` when it is an object (the judge's answer with some versions), and `structured_output`. */
  value?: unknown;
  structured?: unknown;
  isError: boolean;
  subtype?: string;
  usage?: LlmUsage;
  /** `session_id`: the agent session the call ran in (what `--resume` continues). */
  sessionId?: string;
}

/** The envelope in `stdout`, or undefined when stdout is not one. */
export function parseEnvelope(stdout: string): HostEnvelope | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout.trim());
  } catch {
    parsed = lastJsonLine(stdout);
    if (parsed === undefined) return undefined;
  }
  // `--verbose` prints the whole session as an array; the envelope is its last result message.
  const env = Array.isArray(parsed) ? [...parsed].reverse().find((m) => isRecord(m) && m['type'] === 'result') : parsed;
  if (!isRecord(env) || env['type'] !== 'result') return undefined;
  const out: HostEnvelope = { isError: env['is_error'] === true };
  if (typeof env['subtype'] === 'string') out.subtype = env['subtype'];
  if (typeof env['session_id'] === 'string' && env['session_id'] !== '') out.sessionId = env['session_id'];
  const result = env['result'];
  if (typeof result === 'string') out.text = result;
  else if (result !== undefined && result !== null) out.value = result;
  if (env['structured_output'] !== undefined) out.structured = env['structured_output'];
  const usage = envelopeUsage(env);
  if (usage !== undefined) out.usage = usage;
  return out;
}

/** JSON Lines (`--output-format stream-json`): the last line that is a JSON value, or undefined. */
function lastJsonLine(stdout: string): unknown {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  if (lines.length < 2) return undefined;
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    try {
      return JSON.parse(lines[i]!) as unknown;
    } catch {
      // Not a message line (a crash's text after the stream): the one before it may be.
    }
  }
  return undefined;
}

/**
 * Cost and tokens as the envelope states them: `total_cost_usd`; input tokens with the cache's
 * (created and read: all are input, billed at their own rates). Not its `duration_ms`: a call's
 * time is its wall time on the worker ({@link runUsage}).
 */
function envelopeUsage(env: Record<string, unknown>): LlmUsage | undefined {
  const out: LlmUsage = {};
  if (typeof env['total_cost_usd'] === 'number') out.cost_usd = env['total_cost_usd'];
  const u = env['usage'];
  if (isRecord(u)) {
    const inputs = ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens']
      .map((k) => u[k])
      .filter((v): v is number => typeof v === 'number');
    if (inputs.length > 0) out.input_tokens = inputs.reduce((a, b) => a + b, 0);
    if (typeof u['output_tokens'] === 'number') out.output_tokens = u['output_tokens'];
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/**
 * An envelope's usage with the run's wall time on the worker (LlmUsage.duration_ms); undefined
 * when the envelope states no cost and no tokens (usage is what the host CLI reports).
 */
export function runUsage(envelope: HostEnvelope, run: ActionResult): LlmUsage | undefined {
  return envelope.usage === undefined ? undefined : { ...envelope.usage, duration_ms: run.duration_ms };
}

/** Largest full log read back for an envelope whose stdout was cut to its tail. */
const MAX_LOG_READ = 8 * 1024 * 1024;

/**
 * A prompt state's host CLI result read through its envelope: the output is the `result` text,
 * `usage` what the envelope states; an error envelope (`is_error`) is a failed run (exit code 1
 * when the CLI exited 0) with the reason in stderr. `secrets` are masked again in the text (an
 * escaped value in the JSON was not the bytes the stream masker looked for).
 */
export function fromEnvelope(result: ActionResult, secrets: readonly Buffer[] = []): ActionResult {
  const envelope = parseEnvelope(fullStdout(result));
  if (envelope === undefined) return result;
  const text = maskText(envelope.text ?? (envelope.value === undefined ? '' : JSON.stringify(envelope.value)), secrets);
  const cut = textTail(text);
  const out: ActionResult = { ...result, output: cut.output };
  // The output is the text now: a long stream (stream-json's transcript) cut nothing of it, and its
  // files are no output's whole (`logs` would show the transcript's JSON for the answer).
  if (cut.truncated || stderrCut(result)) out.truncated = true;
  else {
    delete out.truncated;
    delete out.log_file;
    delete out.stderr_file;
  }
  const usage = runUsage(envelope, result);
  if (usage !== undefined) out.usage = usage;
  if (envelope.sessionId !== undefined) out.session_id = envelope.sessionId;
  if (envelope.isError) {
    const why = `host CLI reported an error${envelope.subtype ? ` (${envelope.subtype})` : ''}`;
    out.stderr = result.stderr === '' ? why : `${result.stderr.replace(/\n$/, '')}\n${why}`;
    if (out.exit_code === 0) out.exit_code = 1;
  }
  return out;
}

/** Whether stderr was cut to its tail: its file (whole from its first byte) holds more than the tail. */
function stderrCut(result: ActionResult): boolean {
  if (result.stderr_file === undefined) return false;
  try {
    return statSync(result.stderr_file).size !== Buffer.byteLength(result.stderr, 'utf8');
  } catch {
    return true;
  }
}

/** stdout whole: the result's output, or its log file when the output was cut (and the file is whole). */
function fullStdout(result: ActionResult): string {
  if (!result.truncated || result.log_file === undefined) return result.output;
  try {
    if (statSync(result.log_file).size > MAX_LOG_READ) return result.output;
    return readFileSync(result.log_file, 'utf8');
  } catch {
    return result.output;
  }
}

/** A text kept as a process's output is: whole when it fits the tail, else its last {@link STDOUT_TAIL_BYTES} (on a character boundary). */
export function textTail(text: string): { output: string; truncated: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= STDOUT_TAIL_BYTES) return { output: text, truncated: false };
  let start = bytes.length - STDOUT_TAIL_BYTES;
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start += 1;
  return { output: bytes.subarray(start).toString('utf8'), truncated: true };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
