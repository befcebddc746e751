/**
 * `list --visibility public|internal|example|all`: a loop's audience (its top-level `visibility`,
 * little-loops' field: `public` by default, `internal` for a sub-loop never run by itself,
 * `example` for a template). `list` shows the public loops unless asked for others, and says how
 * many it left out.
 */
import { UsageError } from '../../errors/errors.js';

const VISIBILITIES = ['public', 'internal', 'example', 'all'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/** The `--visibility` value, checked (default `public`). */
export function visibilityWanted(value: string | undefined): Visibility {
  if (value === undefined) return 'public';
  if ((VISIBILITIES as readonly string[]).includes(value)) return value as Visibility;
  throw new UsageError(
    `--visibility "${value}" is not one of ${VISIBILITIES.join(', ')}`,
    'e.g. --visibility internal for the sub-loops, --visibility all for every loop',
  );
}

/** A loaded loop's visibility, read defensively (the field is optional, `public` when absent). */
export function visibilityOf(definition: object): string {
  const v = (definition as { visibility?: unknown }).visibility;
  return typeof v === 'string' && v !== '' ? v : 'public';
}

/** Whether a loop of `visibility` is listed for `wanted`. */
export function shown(visibility: string | undefined, wanted: Visibility): boolean {
  return wanted === 'all' || (visibility ?? 'public') === wanted;
}

/** The line saying how many loops the default view left out, if any. */
export function hiddenNote(hidden: number, wanted: Visibility, explicit: boolean): string {
  if (hidden === 0 || explicit || wanted !== 'public') return '';
  return `${hidden} internal or example loop${hidden === 1 ? '' : 's'} not shown (--visibility all shows every loop)\n`;
}
