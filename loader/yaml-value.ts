/**
 * A parsed YAML document → the plain value a loop is read from, or diagnostics with file, line and
 * column. Every way the `yaml` package can refuse a document ends here as a diagnostic, never as a
 * throw: syntax errors (duplicate keys, tabs, several documents), aliases whose anchor is missing,
 * and alias expansions past `MAX_ALIAS_COUNT` (a "billion laughs" file).
 */
import { CST, isAlias, Parser, visit, type Document, type LineCounter } from 'yaml';
import { error, type Diagnostic } from '../fsm/diagnostics.js';

/** Alias expansions allowed in one loop file; loop files use a few, a hostile one millions. */
const MAX_ALIAS_COUNT = 100;

const SYNTAX_FIX = 'fix the YAML syntax at this position';

function at(lines: LineCounter, offset: number | undefined): { line?: number; column?: number } {
  if (offset === undefined) return {};
  const pos = lines.linePos(offset);
  return { line: pos.line, column: pos.col };
}

/** The `yaml` package's words for a problem, in ours where they name its API. */
function syntaxMessage(code: string, message: string): { message: string; fix: string } {
  const first = message.split('\n')[0] ?? message;
  if (code === 'MULTIPLE_DOCS') {
    return {
      message: 'invalid YAML: the file holds more than one YAML document (a second "---" starts another)',
      fix: 'keep one loop per file: remove the second document or move it to a file of its own',
    };
  }
  if (code === 'DUPLICATE_KEY')
    return { message: `invalid YAML: ${first}`, fix: 'remove or rename one of the two keys' };
  if (code === 'TAB_AS_INDENT') return { message: `invalid YAML: ${first}`, fix: 'indent with spaces, not tabs' };
  return { message: `invalid YAML: ${first}`, fix: SYNTAX_FIX };
}

export type YamlValue = { value: unknown } | { diagnostics: Diagnostic[] };

/**
 * Where the quoted value that never closes opens in `source`, and its first line: the parser
 * reports a missing closing quote where it gave up, the end of the file, since a quoted value may
 * span lines; the quote the author left open is where the fix goes.
 */
function unclosedQuote(source: string): { offset: number; start: string } | undefined {
  let found: { offset: number; start: string } | undefined;
  for (const token of new Parser().parse(source)) {
    if (token.type !== 'document') continue;
    CST.visit(token, (item) => {
      for (const t of [item.key, item.value]) {
        if (found || !t || (t.type !== 'double-quoted-scalar' && t.type !== 'single-quoted-scalar')) continue;
        const quote = t.source[0]!;
        const closed =
          t.source.length > 1 && t.source.endsWith(quote) && (quote === "'" || !/(^|[^\\])(\\\\)*\\"$/.test(t.source));
        if (!closed) found = { offset: t.offset, start: t.source.split('\n')[0]! };
      }
      return found ? CST.visit.BREAK : undefined;
    });
    if (found) break;
  }
  return found;
}

/**
 * The document's value, or why it has none. Never throws. `source` (the file's text) lets a quote
 * left open be reported where it opens.
 */
export function yamlValue(doc: Document, lines: LineCounter, file: string, source?: string): YamlValue {
  if (doc.errors.length) {
    return {
      diagnostics: doc.errors.map((e) => {
        const open = e.code === 'MISSING_CHAR' && /closing .?quote/i.test(e.message) && source !== undefined;
        const quote = open ? unclosedQuote(source) : undefined;
        if (quote)
          return {
            ...error(
              [],
              `invalid YAML: the quote opened here is never closed (${quote.start.length > 40 ? `${quote.start.slice(0, 40)}…` : quote.start}); the parser read on to the end of the file`,
              `close it with ${quote.start[0]} where the value ends`,
            ),
            file,
            ...at(lines, quote.offset),
          };
        const { message, fix } = syntaxMessage(e.code, e.message);
        return { ...error([], message, fix), file, ...at(lines, e.pos[0]) };
      }),
    };
  }
  const unresolved: Diagnostic[] = [];
  visit(doc, {
    Alias(_key, node) {
      // The anchor must appear before its alias (resolve() looks only backwards).
      if (node.resolve(doc) === undefined) {
        unresolved.push({
          ...error(
            [],
            `invalid YAML: alias *${node.source} refers to no anchor &${node.source} before it`,
            `define &${node.source} on a value above this line, or write the value here instead of *${node.source}`,
          ),
          file,
          ...at(lines, node.range?.[0]),
        });
      }
    },
  });
  if (unresolved.length) return { diagnostics: unresolved };
  try {
    return { value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const excessive = /excessive alias count/i.test(message);
    const firstAlias = firstAliasOffset(doc);
    return {
      diagnostics: [
        {
          ...error(
            [],
            excessive
              ? `invalid YAML: aliases expand to more than ${MAX_ALIAS_COUNT} copies (a document built to exhaust memory?)`
              : `invalid YAML: ${message.split('\n')[0]}`,
            excessive ? 'write the repeated values out, or use fewer nested aliases' : SYNTAX_FIX,
          ),
          file,
          ...at(lines, firstAlias),
        },
      ],
    };
  }
}

function firstAliasOffset(doc: Document): number | undefined {
  let offset: number | undefined;
  visit(doc, {
    Node(_key, node) {
      if (isAlias(node)) {
        offset = node.range?.[0];
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return offset;
}
