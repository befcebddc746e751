/**
 * The host CLI's JSON envelope (activities/host-envelope.ts) with envelopes shaped as
 * `claude -p --output-format json` prints them: the result text becomes a prompt state's output,
 * cost and tokens (cache tokens counted as input) its usage; anything that is not an envelope
 * stays as printed, with no usage.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromEnvelope, parseEnvelope } from '../../activities/host-envelope.js';
import { maskableSecrets } from '../../activities/secret-mask.js';
import type { ActionResult } from '../../fsm/types.js';

/** A success envelope as Claude Code prints it (fields as of 2025). */
const SUCCESS = {
  type: 'result',
  subtype: 'success',
  is_error: false,
  duration_ms: 3952,
  duration_api_ms: 12932,
  num_turns: 1,
  result: 'Fixed the failing test in src/sum.ts.',
  session_id: '7c0b3bb4-1a53-4a9f-9d54-2a9a0c6f3e11',
  total_cost_usd: 0.10457895,
  usage: {
    input_tokens: 2,
    cache_creation_input_tokens: 7924,
    cache_read_input_tokens: 13368,
    output_tokens: 9,
    server_tool_use: { web_search_requests: 0 },
    service_tier: 'standard',
  },
  permission_denials: [],
  uuid: 'a3f6c7e2-0d6b-4e0e-8a55-1f0f7c2b9d10',
};

const run = (output: string, extra: Partial<ActionResult> = {}): ActionResult => ({
  output,
  stderr: '',
  exit_code: 0,
  duration_ms: 4100,
  ...extra,
});

describe('parseEnvelope', () => {
  it('reads result, cost and tokens (cache tokens are input)', () => {
    expect(parseEnvelope(JSON.stringify(SUCCESS))).toEqual({
      isError: false,
      subtype: 'success',
      text: SUCCESS.result,
      usage: { cost_usd: 0.10457895, input_tokens: 2 + 7924 + 13368, output_tokens: 9 },
      sessionId: SUCCESS.session_id,
    });
  });

  it('--verbose prints the session as an array: the last result message is the envelope', () => {
    const session = [
      { type: 'system', subtype: 'init', session_id: 's' },
      { type: 'assistant', message: { content: [{ type: 'text', text: 'hi' }] } },
      SUCCESS,
    ];
    expect(parseEnvelope(JSON.stringify(session))?.text).toBe(SUCCESS.result);
  });

  it('an error subtype without a result is an error envelope', () => {
    const env = {
      type: 'result',
      subtype: 'error_max_turns',
      is_error: true,
      duration_ms: 900,
      num_turns: 10,
      session_id: 's',
      total_cost_usd: 0.02,
      usage: { input_tokens: 10, output_tokens: 3 },
    };
    expect(parseEnvelope(JSON.stringify(env))).toEqual({
      isError: true,
      subtype: 'error_max_turns',
      usage: { cost_usd: 0.02, input_tokens: 10, output_tokens: 3 },
      sessionId: 's',
    });
  });

  it.each([
    ['plain text', 'done: fixed it\n'],
    ['other JSON', '{"verdict":"yes"}'],
    ['a JSON array', '[1,2]'],
    ['nothing', ''],
    ['a cut envelope', JSON.stringify(SUCCESS).slice(0, 40)],
  ])('%s is not an envelope', (_what, stdout) => {
    expect(parseEnvelope(stdout)).toBeUndefined();
  });
});

describe('fromEnvelope (a prompt state run by the host CLI)', () => {
  it('the output is the result text; usage has the run wall time on the worker', () => {
    const r = fromEnvelope(run(`${JSON.stringify(SUCCESS)}\n`));
    expect(r).toEqual({
      output: SUCCESS.result,
      stderr: '',
      exit_code: 0,
      duration_ms: 4100,
      usage: { cost_usd: 0.10457895, input_tokens: 21294, output_tokens: 9, duration_ms: 4100 },
      session_id: SUCCESS.session_id,
    });
  });

  it('a non-envelope stdout stays the output as printed, with no usage (never an error)', () => {
    const printed = run('done: Fix the tests\n');
    expect(fromEnvelope(printed)).toBe(printed);
  });

  it('an error envelope is a failed run with the reason in stderr', () => {
    const env = {
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      duration_ms: 50,
      num_turns: 1,
      session_id: 's',
      total_cost_usd: 0,
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    expect(fromEnvelope(run(JSON.stringify(env)))).toMatchObject({
      output: '',
      exit_code: 1,
      stderr: 'host CLI reported an error (error_during_execution)',
    });
    // A non-zero exit is kept as the CLI gave it.
    expect(
      fromEnvelope(run(JSON.stringify({ ...env, result: 'API Error: 500' }), { exit_code: 2, stderr: 'boom\n' })),
    ).toMatchObject({
      output: 'API Error: 500',
      exit_code: 2,
      stderr: 'boom\nhost CLI reported an error (error_during_execution)',
    });
  });

  it('an envelope cut to its tail is read from the log file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'll-loop-envelope-'));
    const log = join(dir, 'out.log');
    const long = { ...SUCCESS, result: `${'x'.repeat(70 * 1024)}END` };
    writeFileSync(log, JSON.stringify(long));
    const r = fromEnvelope(run(JSON.stringify(long).slice(-1000), { truncated: true, log_file: log }));
    expect(r.output.endsWith('xEND')).toBe(true);
    expect(r.truncated).toBe(true);
    expect(r.usage?.output_tokens).toBe(9);
  });

  it('a stream whose transcript outgrew the tail, with a short answer, is not truncated', () => {
    const dir = mkdtempSync(join(tmpdir(), 'll-loop-envelope-'));
    const [log, errLog] = [join(dir, 'out.log'), join(dir, 'out.stderr.log')];
    const tool = { type: 'user', message: { content: [{ type: 'tool_result', content: 'y'.repeat(80 * 1024) }] } };
    const stream = `${JSON.stringify(tool)}\n${JSON.stringify(SUCCESS)}\n`;
    writeFileSync(log, stream);
    writeFileSync(errLog, 'a warning\n');
    const spilled = { truncated: true as const, log_file: log, stderr_file: errLog, stderr: 'a warning\n' };
    const r = fromEnvelope(run(stream.slice(-1000), spilled));
    expect(r.output).toBe(SUCCESS.result);
    expect(r).not.toHaveProperty('truncated');
    expect(r).not.toHaveProperty('log_file');
    expect(r).not.toHaveProperty('stderr_file');
    // stderr cut to its tail: still truncated, its files kept.
    writeFileSync(errLog, `${'w'.repeat(20 * 1024)}a warning\n`);
    expect(fromEnvelope(run(stream.slice(-1000), spilled))).toMatchObject({ truncated: true, stderr_file: errLog });
  });

  it('a secret escaped in the JSON (so not masked in the stream) is masked in the text', () => {
    const secret = 'pa"ss\\word-1234';
    const r = fromEnvelope(
      run(JSON.stringify({ ...SUCCESS, result: `the key is ${secret}` })),
      maskableSecrets([secret]),
    );
    expect(r.output).toBe('the key is ***');
  });
});
