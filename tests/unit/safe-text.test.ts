/** Untrusted text for the terminal: escape sequences and controls shown, never acted on. */
import { describe, expect, it } from 'vitest';
import { safeLine, safeText } from '../../reporters/safe-text.js';

/** Any character a terminal would act on (besides tab and newline). */
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('safeText', () => {
  it.each([
    ['an OSC title change', 'a\x1b]0;pwned\x07b', 'a\\x1b]0;pwned\\ab'],
    ['clear screen', '\x1b[2Jafter', '\\x1b[2Jafter'],
    ['a cursor move', 'x\x1b[10;1Hy', 'x\\x1b[10;1Hy'],
    ['a bare carriage return', 'progress 10%\rprogress 100%', 'progress 10%\\rprogress 100%'],
    ['a C1 CSI', 'a\x9b31mred', 'a\\x9b31mred'],
    ['BEL and backspace', 'ding\x07\x08', 'ding\\a\\b'],
    ['DEL and NUL', 'a\x7fb\x00', 'a\\x7fb\\x00'],
    ['a bidi override', 'abc\u202Egnp.exe', 'abc\\u202egnp.exe'],
    ['a bidi isolate', '\u2066x\u2069', '\\u2066x\\u2069'],
  ])('shows %s as visible escapes', (_name, input, shown) => {
    const out = safeText(input);
    expect(out).toBe(shown);
    expect(ACTIVE.test(out)).toBe(false);
  });

  it('keeps tabs, newlines and printable Unicode; a CR LF line end becomes a newline', () => {
    expect(safeText('a\tb\nc — é ✓ 日本\r\nd')).toBe('a\tb\nc — é ✓ 日本\nd');
  });

  it('safeLine flattens newlines and tabs too', () => {
    expect(safeLine('a\tb\nc\x1b[2J')).toBe('a\\tb\\nc\\x1b[2J');
  });
});
