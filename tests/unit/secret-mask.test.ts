import { describe, expect, it } from 'vitest';
import { MIN_MASKED_LENGTH, StreamMasker, maskText, maskableSecrets } from '../../activities/secret-mask.js';

/** Feeds `text` to a masker in chunks of `size` bytes and returns what came out. */
function streamed(text: string, secrets: string[], size: number): string {
  const m = new StreamMasker(maskableSecrets(secrets));
  const bytes = Buffer.from(text);
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(m.push(bytes.subarray(i, i + size)));
  out.push(m.end());
  return Buffer.concat(out).toString('utf8');
}

describe('secret masking', () => {
  it('masks every occurrence, whatever the chunking (a secret split across chunks included)', () => {
    const text = 'token=hunter2-ßecret\nagain hunter2-ßecret and hunter2-ß… end';
    const want = 'token=***\nagain *** and hunter2-ß… end';
    for (const size of [1, 2, 3, 5, 7, 13, 64, 1000]) expect(streamed(text, ['hunter2-ßecret'], size)).toBe(want);
  });

  it('prefers the longest secret at one position and masks overlapping values', () => {
    expect(maskText('abcdef abcd', maskableSecrets(['abcd', 'abcdef']))).toBe('*** ***');
    expect(streamed('xxabcdefxx', ['cdefxx', 'abcd'], 3)).toBe('xx***efxx');
  });

  it(`leaves values shorter than ${MIN_MASKED_LENGTH} bytes alone`, () => {
    expect(maskableSecrets(['on', '123', '', 'long enough'])).toEqual([Buffer.from('long enough')]);
    expect(maskText('on 123 long enough', maskableSecrets(['on', '123', 'long enough']))).toBe('on 123 ***');
  });

  it('passes chunks through unchanged without secrets', () => {
    const m = new StreamMasker([]);
    const chunk = Buffer.from('abc');
    expect(m.push(chunk)).toBe(chunk);
    expect(m.end().length).toBe(0);
  });

  it('holds back only a tail that could still begin a secret', () => {
    const m = new StreamMasker(maskableSecrets(['secret']));
    expect(m.push(Buffer.from('hello secr')).toString()).toBe('hello ');
    expect(m.push(Buffer.from('et!\n')).toString()).toBe('***!\n');
    expect(m.push(Buffer.from('no match\n')).toString()).toBe('no match\n');
    expect(m.push(Buffer.from('s')).toString()).toBe('');
    expect(m.end().toString()).toBe('s');
  });

  it('masks a short secret complete inside the held tail of a longer one', () => {
    const secrets = ['abcd', 'abcdefgh'];
    for (const size of [1, 2, 3, 4, 5, 9])
      expect(streamed('xxabcdx abcdefg abcdefgh', secrets, size)).toBe('xx***x ***efg ***');
  });
});
