/**
 * The context a command line gives: `--context KEY=VALUE` and `--context-file KEY=PATH`, as the
 * `KEY=VALUE` pairs the loader parses (a value may hold anything, `=` and newlines included).
 *
 * `--context-file` exists because one argument cannot exceed 128 KiB on Linux (MAX_ARG_STRLEN):
 * a larger value can only come from a file. The file's bytes are the value, exactly (no trimming
 * of a final newline); they must be UTF-8 text, since a context value is a string carried as
 * JSON — a file that is not is refused rather than silently altered. A relative PATH is relative
 * to the directory the command was started in.
 *
 * Only a regular file is read, and never more than a run can carry (MAX_DEFINITION_BYTES): a
 * device (`/dev/zero`), a FIFO or a socket has no end to read to, and a file that grows while it
 * is read stops at the limit rather than filling memory. The file is opened without blocking, so a
 * FIFO with no writer is refused rather than waited on.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { resolve } from 'node:path';
import { MAX_DEFINITION_BYTES, sizeText } from '../../loader/payload-limit.js';
import { list, type CommandContext } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';

/** The flags every command that takes context declares. */
export const CONTEXT_FLAGS = {
  context: { type: 'string', multiple: true, short: 'c' },
  'context-file': { type: 'string', multiple: true },
} as const;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** One `--context-file KEY=PATH`, read: `[KEY, contents]`. */
function readContextFile(pair: string, baseDir: string): [string, string] {
  const at = pair.indexOf('=');
  if (at <= 0 || at === pair.length - 1) {
    throw new UsageError(
      `--context-file "${pair}" is not KEY=PATH`,
      'write --context-file name=path/to/file (the file’s contents become the value of context.name)',
    );
  }
  const key = pair.slice(0, at);
  // Refused here, by this flag: the loader's refusal would quote the pair, the file's contents.
  if (key === '__proto__')
    throw new UsageError(
      `--context-file ${pair}: "__proto__" cannot be a context key (JavaScript reserves the name)`,
      'give the value another key',
    );
  const path = resolve(baseDir, pair.slice(at + 1));
  let bytes: Buffer;
  try {
    bytes = readRegularFile(path, MAX_DEFINITION_BYTES);
  } catch (err) {
    if (err instanceof NotRegularError)
      throw new UsageError(
        `--context-file ${key}=${pair.slice(at + 1)}: ${path} is ${err.kind}, not a regular file`,
        'give a regular file; to pass what a command prints, write it to a file first (cmd > out.txt) and give that file',
      );
    if (err instanceof TooLargeError)
      throw new UsageError(
        `--context-file ${key}=${pair.slice(at + 1)}: ${path} is over ${sizeText(MAX_DEFINITION_BYTES)}, more than a run can carry (Temporal refuses payloads over its limit)`,
        'keep large text in a file the actions read, and pass its path as a context value instead (--context KEY=PATH)',
      );
    const e = err as NodeJS.ErrnoException;
    const why =
      e.code === 'ENOENT'
        ? 'no such file'
        : e.code === 'EISDIR'
          ? 'it is a directory'
          : e.code === 'EACCES'
            ? 'permission denied'
            : e.message;
    throw new UsageError(
      `--context-file ${key}=${pair.slice(at + 1)}: cannot read ${path} (${why})`,
      'give the path of a readable file, relative to the directory you run ll-loop in',
    );
  }
  try {
    return [key, UTF8.decode(bytes)];
  } catch {
    throw new UsageError(
      `--context-file ${key}: ${path} is not UTF-8 text`,
      'a context value is text: convert the file to UTF-8 (or encode binary data, e.g. base64) and give that file',
    );
  }
}

class TooLargeError extends Error {}

class NotRegularError extends Error {
  constructor(readonly kind: string) {
    super(kind);
  }
}

/** What a file that is neither regular nor a directory is, for the refusal. */
function kindOf(st: Stats): string {
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The bytes of the regular file at `path`, at most `limit` of them (TooLargeError past that,
 * checked while reading); NotRegularError for a device, FIFO or socket, EISDIR for a directory.
 */
function readRegularFile(path: string, limit: number): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    if (!st.isFile()) throw new NotRegularError(kindOf(st));
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, limit + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) return Buffer.concat(chunks, total);
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > limit) throw new TooLargeError();
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The command line's context as `KEY=VALUE` pairs: `--context` ones, then one per
 * `--context-file`. A key given both ways, or by two files, is refused: which should win is not
 * obvious.
 */
export function contextPairs(ctx: CommandContext): string[] {
  const pairs = list(ctx, 'context');
  const files = list(ctx, 'context-file');
  if (files.length === 0) return pairs;
  const given = new Set(pairs.map((p) => p.slice(0, Math.max(0, p.indexOf('=')))));
  const out = [...pairs];
  for (const file of files) {
    const [key, value] = readContextFile(file, ctx.invokedIn ?? ctx.cwd);
    if (given.has(key))
      throw new UsageError(
        `context key "${key}" is given twice (--context and --context-file, or two files)`,
        'give each key once',
      );
    given.add(key);
    out.push(`${key}=${value}`);
  }
  return out;
}
