/**
 * bin/code-cache.js: a CommonJS file run with V8's code cache — written when missing or refused,
 * used by the next load, keyed by command and Node flags, and never a failure when it cannot be
 * written. The module runs as CommonJS would run it (exports, its own require, __filename).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript of the installed entry point, without types
import { cacheFileName, loadWithCodeCache } from '../../bin/code-cache.js';

interface Loaded {
  exports: { answer: () => string; here: string; dir: string };
  cache: 'used' | 'missing' | 'rejected';
  save: () => void;
}
const load = loadWithCodeCache as (file: string, command: string, opts?: object) => Loaded;
const fileName = cacheFileName as (command: string, execArgv?: string[], nodeVersion?: string) => string;

const base = mkdtempSync(join(tmpdir(), 'll-code-cache-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A CommonJS module that requires a sibling, in a folder of its own. */
function moduleFile(name: string): string {
  const dir = join(base, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'dep.cjs'), "module.exports = { word: 'forty-two' };\n");
  const file = join(dir, 'bundle.cjs');
  writeFileSync(
    file,
    "const { word } = require('./dep.cjs');\n" +
      'exports.answer = function answer() { return word.toUpperCase(); };\n' +
      'exports.here = __filename;\nexports.dir = __dirname;\n',
  );
  return file;
}

describe('loading a CommonJS file with the code cache', () => {
  it('runs it as CommonJS; writes the cache when missing; the next load uses it', () => {
    const file = moduleFile('first');
    const cacheDir = join(base, 'first-cache');
    const first = load(file, 'run', { cacheDir });
    expect(first.cache).toBe('missing');
    expect(first.exports.answer()).toBe('FORTY-TWO');
    expect(first.exports.here).toBe(file);
    expect(first.exports.dir).toBe(join(base, 'first'));
    first.save();
    expect(readdirSync(cacheDir)).toEqual([fileName('run')]);
    const second = load(file, 'run', { cacheDir });
    expect(second.cache).toBe('used');
    expect(second.exports.answer()).toBe('FORTY-TWO');
  });

  it('a cache V8 refuses (another build) is written again', () => {
    const file = moduleFile('refused');
    const cacheDir = join(base, 'refused-cache');
    mkdirSync(cacheDir);
    writeFileSync(join(cacheDir, fileName('worker')), 'not a code cache');
    const refused = load(file, 'worker', { cacheDir });
    expect(refused.cache).toBe('rejected');
    expect(refused.exports.answer()).toBe('FORTY-TWO');
    refused.save();
    expect(load(file, 'worker', { cacheDir }).cache).toBe('used');
  });

  it('each command and set of Node flags has a cache of its own', () => {
    expect(fileName('run', [])).not.toBe(fileName('worker', []));
    expect(fileName('worker', ['--max-semi-space-size=2'])).not.toBe(fileName('worker', []));
    expect(fileName('worker', ['--max-semi-space-size=2'])).toBe(fileName('worker', ['--max-semi-space-size=2']));
    expect(fileName('../x', [])).not.toContain('/');
  });

  it('each Node version has a cache of its own (V8 refuses another version’s: Node 20 and 24 on one install)', () => {
    expect(fileName('run', [], 'v20.20.2')).not.toBe(fileName('run', [], 'v24.21.0'));
    expect(fileName('run', [], 'v24.21.0')).toBe(fileName('run', [], 'v24.21.0'));
  });

  it('a folder that cannot be written: the module runs, nothing is cached, nothing fails', () => {
    const file = moduleFile('readonly');
    // A path below a regular file can never be created, whoever runs the test.
    const cacheDir = join(file, 'code-cache');
    const loaded = load(file, 'run', { cacheDir });
    expect(loaded.exports.answer()).toBe('FORTY-TWO');
    expect(() => loaded.save()).not.toThrow();
    expect(existsSync(cacheDir)).toBe(false);
    expect(load(file, 'run', { cacheDir }).cache).toBe('missing');
  });
});
