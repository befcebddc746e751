/**
 * Text that actions (and loops' captured values) provide is untrusted: printed raw, an escape
 * sequence could retitle the terminal (`ESC ] 0 ; … BEL`), clear it (`ESC [ 2 J`), move the cursor,
 * or overwrite a line with a bare carriage return, and a bidi override could reorder what is read.
 * Every printer of such text in the human displays (the progress display, `logs`, `history`) passes
 * it through {@link safeText}. JSON output needs nothing: JSON.stringify escapes C0 controls, and
 * the reader of JSON decides how to show the rest.
 */

/**
 * Characters never written as such: C0 controls but tab and newline, DEL, C1 controls (U+0080–
 * U+009F: U+009B is a one-character CSI on some terminals), and the bidi embeddings, overrides and
 * isolates (U+202A–U+202E, U+2066–U+2069), line and paragraph separators.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /\r\n|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\r': '\\r', '\u0007': '\\a', '\b': '\\b', '\f': '\\f', '\v': '\\v' };

/** How one unsafe character is shown: `\r`, `\x1b`, `\u202e`. */
function visible(ch: string): string {
  const named = NAMED[ch];
  if (named !== undefined) return named;
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every control character and escape sequence introducer shown as a visible escape
 * (`\x1b[2J`, `\r`, `\x9b`, `\u202e`), so that it cannot act on the terminal. Tabs and newlines
 * stay; a CR LF line end becomes a plain newline (only a bare CR overwrites a line). Pure, total.
 */
export function safeText(text: string): string {
  return text.replace(UNSAFE, (ch) => (ch === '\r\n' ? '\n' : visible(ch)));
}

/** {@link safeText} for one line of a display: newlines and tabs shown as escapes too. */
export function safeLine(text: string): string {
  return safeText(text).replace(/\n/g, '\\n').replace(/\t/g, '\\t');
}
