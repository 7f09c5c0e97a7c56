import { describe, expect, it } from 'vitest';
import { createSecretBox, randomToken } from 'mailplane';

describe('createSecretBox', () => {
  const box = createSecretBox('a'.repeat(40));

  it('round-trips through AES-GCM and refuses tampered or foreign ciphertext', () => {
    const sealed = box.encrypt('hunter2');
    expect(sealed).not.toContain('hunter2');
    expect(box.decrypt(sealed)).toBe('hunter2');
    const [v, iv, tag, data] = sealed.split('.');
    const bytes = Buffer.from(data!, 'base64url');
    bytes[0] = bytes[0]! ^ 1; // one bit of the ciphertext changed
    const flipped = `${v}.${iv}.${tag}.${bytes.toString('base64url')}`;
    expect(() => box.decrypt(flipped)).toThrow();
    expect(() => createSecretBox('b'.repeat(40)).decrypt(sealed)).toThrow();
  });

  it('hashes for lookup deterministically, keyed by the secret', () => {
    expect(box.lookupHash('k')).toBe(box.lookupHash('k'));
    expect(box.lookupHash('k')).not.toBe(createSecretBox('b'.repeat(40)).lookupHash('k'));
    expect(box.matches('k', box.lookupHash('k'))).toBe(true);
    expect(box.matches('K', box.lookupHash('k'))).toBe(false);
  });

  it('refuses a short secret', () => {
    expect(() => createSecretBox('short')).toThrow(/at least 32/);
  });

  it('makes random tokens of the requested alphabet and length', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => randomToken(32, 'p_')));
    expect(tokens.size).toBe(1000);
    for (const t of tokens) expect(t).toMatch(/^p_[0-9A-Za-z]{32}$/);
  });
});
