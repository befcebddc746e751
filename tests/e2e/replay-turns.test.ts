/**
 * Replayers in one long-lived process (`ll-loop mcp`, `ui`, a command following several runs):
 * one closed while the next is being made must not end the SDK's runtime under the new one
 * (worker/replay-events.ts takes turns). In a process of its own, holding no other worker, as
 * those processes are between runs.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

describe('replayers in one process', () => {
  it('a replayer closed while the next is being made leaves the next one working', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        join(ROOT, 'tests', 'support', 'replay-turns.mjs'),
        'tests/fixtures/histories/0.8.1/shell.json',
        'shell-5c67b46a',
      ],
      { cwd: ROOT, timeout: 120_000 },
    );
    expect(JSON.parse(stdout)).toEqual({ errors: [] });
  });
});
