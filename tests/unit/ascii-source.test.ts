/**
 * worker/ascii-source.ts: the bundles written as ASCII mean what they meant (strings, templates,
 * regular expressions, comments), and a source where an escape would change the meaning (a
 * non-ASCII character right after a backslash) is left as it is.
 */
import { describe, expect, it } from 'vitest';
import { asciiSource } from '../../worker/ascii-source.js';

const run = (code: string): unknown => new Function(code)();

describe('asciiSource', () => {
  it('escapes every non-ASCII unit, and the code computes the same values', () => {
    const code = [
      '// a comment — with a dash',
      "const s = 'nothing — …';",
      'const t = `x → ${s} · ø`;',
      'const r = /[—→]/.test("a→b");',
      "const e = '😀'.length;",
      'return [s, t, r, e];',
    ].join('\n');
    const ascii = asciiSource(code);
    expect(ascii).toMatch(/^[\x00-\x7f]*$/);
    expect(run(ascii)).toEqual(run(code));
    expect(run(ascii)).toEqual(['nothing — …', 'x → nothing — … · ø', true, 2]);
  });

  it('leaves ASCII code and code with an identity escape of a non-ASCII character unchanged', () => {
    expect(asciiSource('return 1;')).toBe('return 1;');
    const identity = "return '\\—';";
    expect(asciiSource(identity)).toBe(identity);
    expect(run(identity)).toBe('—');
  });
});
