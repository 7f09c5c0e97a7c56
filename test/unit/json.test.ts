import { describe, expect, it } from 'vitest';
import { stringifyJson } from 'mailplane';

describe('stringifyJson', () => {
  it('writes bigints above 2^53 as exact integer literals', () => {
    const text = stringifyJson({ created: 1_733_844_681_120_384_511n, list: [-5n, 0n] });
    expect(text).toBe('{"created":1733844681120384511,"list":[-5,0]}');
  });

  it('leaves strings that look like bigints alone', () => {
    const text = stringifyJson({ a: '1733844681120384511', b: 1n });
    expect(JSON.parse(text)).toEqual({ a: '1733844681120384511', b: 1 });
  });
});
