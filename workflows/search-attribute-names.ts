/**
 * The names and types of ll-loop's custom search attributes, in a module that loads no Temporal
 * SDK: the CLI's error policy (errors/errors.ts) recognises them in server answers for every
 * command, `--help` included, and must stay cheap to import.
 */

/** Search attribute value types ll-loop may declare (the CLI's spelling). */
export type SearchAttributeKind = 'Keyword' | 'Text' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

/** Custom search attributes set on every loop workflow: name → type. */
export const SEARCH_ATTRIBUTES = {
  LoopName: 'Keyword',
  LoopState: 'Keyword',
  LoopStatus: 'Keyword',
  LoopCategory: 'Keyword',
  /** The checkout the run was started in (host/checkout.ts checkoutKey): names resolve per checkout. */
  LoopCheckout: 'Keyword',
} as const satisfies Record<string, SearchAttributeKind>;
