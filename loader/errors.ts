/**
 * The loader's typed errors. A bad loop *file* is never an exception (its problems are
 * diagnostics with file, line and column); a LoadError means there is no file to read at all, or a
 * value handed to the loader cannot be used. Callers decide what it means for them: the CLI maps
 * it to a usage error (errors/errors.ts), the `loadSubloop` activity to an `error` verdict.
 */

/** What went wrong, as a stable string a caller can branch on. */
export const LOAD_ERROR_KIND = {
  /** No project loop, path or built-in loop has the name asked for. */
  unknownLoop: 'unknown-loop',
  /** A `--context` pair is not `KEY=VALUE`. */
  badContext: 'bad-context',
} as const;

export type LoadErrorKind = (typeof LOAD_ERROR_KIND)[keyof typeof LOAD_ERROR_KIND];

/** Where a LoadError points, when it points at a file. */
export interface LoadErrorPlace {
  /** The loop file concerned, if the error is about one. */
  readonly file?: string;
  /** 1-based line in `file`. */
  readonly line?: number;
}

/** A loop could not be loaded for a reason outside any file's contents; `fix` says what to do. */
export class LoadError extends Error {
  override readonly name = 'LoadError';
  readonly file?: string;
  readonly line?: number;
  constructor(
    readonly kind: LoadErrorKind,
    message: string,
    readonly fix?: string,
    place: LoadErrorPlace = {},
  ) {
    super(message);
    if (place.file !== undefined) this.file = place.file;
    if (place.line !== undefined) this.line = place.line;
  }
}
