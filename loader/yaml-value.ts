/**
 * A parsed YAML document → the plain value a loop is read from, or diagnostics with file, line and
 * column. Every way the `yaml` package can refuse a document ends here as a diagnostic, never as a
 * throw: syntax errors (duplicate keys, tabs, several documents), aliases whose anchor is missing,
 * and alias expansions past `MAX_ALIAS_COUNT` (a "billion laughs" file).
 */
import { isAlias, visit, type Document, type LineCounter } from 'yaml';
import { error, type Diagnostic } from '../fsm/diagnostics.js';

/** Alias expansions allowed in one loop file; loop files use a few, a hostile one millions. */
export const MAX_ALIAS_COUNT = 100;

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

/** The document's value, or why it has none. Never throws. */
export function yamlValue(doc: Document, lines: LineCounter, file: string): YamlValue {
  if (doc.errors.length) {
    return {
      diagnostics: doc.errors.map((e) => {
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
