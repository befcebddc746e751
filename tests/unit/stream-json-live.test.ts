/**
 * A prompt action's live view (activities/stream-json-live.ts): Claude Code's stream-json lines
 * shown as the agent's text, its tool calls and tool errors, and how it ended, whatever the
 * chunking; other output as it came; secrets escaped in the JSON masked once parsed.
 */
import { describe, expect, it } from 'vitest';
import { StreamJsonLive } from '../../activities/stream-json-live.js';
import { maskableSecrets } from '../../activities/secret-mask.js';

const line = (v: unknown) => `${JSON.stringify(v)}\n`;
const session = [
  line({ type: 'system', subtype: 'init', model: 'claude-sonnet-4', session_id: 's1', tools: ['Bash'] }),
  line({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Reading the parser.' }] } }),
  line({
    type: 'assistant',
    message: {
      content: [
        { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test -- parser', description: 'run' } },
        { type: 'tool_use', id: 't2', name: 'TodoWrite', input: { todos: [{ content: 'x' }] } },
      ],
    },
  }),
  line({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] } }),
  line({
    type: 'user',
    message: { content: [{ type: 'tool_result', tool_use_id: 't1', is_error: true, content: 'exit 1\n2 failed' }] },
  }),
  line({ type: 'result', subtype: 'success', is_error: false, num_turns: 3, result: 'Fixed it', session_id: 's1' }),
].join('');

/** What the view shows for `text` fed in chunks of `size` bytes. */
function shown(text: string, size: number, view = new StreamJsonLive()): string {
  const bytes = Buffer.from(text, 'utf8');
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(view.stdout(bytes.subarray(i, i + size)));
  out.push(view.end());
  return Buffer.concat(out).toString('utf8');
}

describe('stream-json live view', () => {
  it.each([1, 7, 64, 100_000])('shows text, tool calls, tool errors and the end (chunks of %i bytes)', (size) => {
    expect(shown(session, size)).toBe(
      [
        '[agent: claude-sonnet-4]',
        'Reading the parser.',
        'tool: Bash npm test -- parser',
        'tool: TodoWrite {"todos":[{"content":"x"}]}',
        'tool error: exit 1 2 failed',
        '[agent done: 3 turns]',
        '',
      ].join('\n'),
    );
  });

  it('shows a line only once it is complete', () => {
    const view = new StreamJsonLive();
    const text = line({ type: 'assistant', message: { content: [{ type: 'text', text: 'half' }] } });
    expect(view.stdout(Buffer.from(text.slice(0, 20))).length).toBe(0);
    expect(view.stdout(Buffer.from(text.slice(20))).toString()).toBe('half\n');
  });

  it("shows a lone envelope's answer (a host CLI that prints only that), and an error's subtype", () => {
    expect(shown(line({ type: 'result', is_error: false, result: 'the answer' }), 10)).toBe(
      'the answer\n[agent done]\n',
    );
    expect(shown(line({ type: 'result', subtype: 'error_max_turns', is_error: true }), 10)).toBe(
      '[agent error: error_max_turns]\n',
    );
  });

  it('shows other output as it came, an unterminated last line included', () => {
    expect(shown('plain text\n{not json\n[1,2]\nlast', 3)).toBe('plain text\n{not json\n[1,2]\nlast');
  });

  it('masks a secret that the JSON escaped (the stream masker saw only its escaped bytes)', () => {
    const secret = 'tok"en\\value-123';
    const view = new StreamJsonLive(maskableSecrets([secret]));
    const text = line({ type: 'assistant', message: { content: [{ type: 'text', text: `the key is ${secret}` }] } });
    expect(text).not.toContain(secret);
    const out = shown(text, 5, view);
    expect(out).toBe('the key is ***\n');
  });

  it('passes a line too long to hold as it comes, and parses the next', () => {
    const long = 'x'.repeat(1024 * 1024 + 10);
    const next = line({ type: 'assistant', message: { content: [{ type: 'text', text: 'after' }] } });
    expect(shown(`${long}\n${next}`, 64 * 1024)).toBe(`${long}\nafter\n`);
  });
});
