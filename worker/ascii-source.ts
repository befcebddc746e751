/**
 * JavaScript source as ASCII: every non-ASCII UTF-16 unit written as a `\uXXXX` escape. V8 keeps
 * a module's source for as long as the module lives, and a source with a single character beyond
 * Latin-1 (an em dash in a comment) is stored at two bytes per character: the CLI bundle's two
 * large chunks took 2.25 MB of a checkout worker's heap instead of 1.2 MB, and the workflow
 * bundle is held by the workflows' V8 context. In a string, template or regular expression literal the
 * escape denotes the same character, in a comment it is inert.
 *
 * The one place an escape would change the meaning is right after a backslash (`"\—"` is an
 * identity escape); a source with a non-ASCII character there is returned unchanged.
 */
export function asciiSource(code: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(code) || /\\[^\x00-\x7f]/.test(code)) return code;
  // eslint-disable-next-line no-control-regex
  return code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
