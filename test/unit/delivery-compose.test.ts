import { describe, expect, it } from 'vitest';
import { messageIdHeader, withCrlf } from '../../src/delivery/compose.js';
import { messageIdOfVerp, verpAddress } from '../../src/delivery/verp.js';
import { defaultDeliveryConfig, resolveDeliveryConfig } from '../../src/delivery/config.js';

describe('VERP and Message-ID', () => {
  it('the VERP address names the message, and reads back', () => {
    const id = '0b6a4a8e-3f7c-4d2e-9a51-2f7d1c9e8b10';
    expect(verpAddress(id, 'rp.sender.test')).toBe(`b+${id}@rp.sender.test`);
    expect(messageIdOfVerp(`b+${id.toUpperCase()}@rp.sender.test`)).toBe(id);
    expect(messageIdOfVerp('bounces@rp.sender.test')).toBeNull();
    expect(messageIdHeader(id, 'sender.test')).toBe(`<${id}@sender.test>`);
  });
});

describe('delivery configuration', () => {
  it('retries 5 times, the last one 24 hours after the first attempt; unset fields keep their defaults', () => {
    expect(defaultDeliveryConfig.retryDelaysMs).toHaveLength(5);
    expect(defaultDeliveryConfig.retryDelaysMs.reduce((a, b) => a + b, 0)).toBe(86_400_000);
    expect(resolveDeliveryConfig({ mxPort: 2525, concurrency: undefined })).toEqual({
      ...defaultDeliveryConfig,
      mxPort: 2525,
    });
  });
});

describe('line breaks of bodies sent as is', () => {
  it('become CRLF whatever they were, and nothing else changes', () => {
    expect(withCrlf('a\nb\rc\r\nd\n\re\r\r\n')).toBe('a\r\nb\r\nc\r\nd\r\n\r\ne\r\n\r\n');
    expect(withCrlf('\n')).toBe('\r\n');
    expect(withCrlf('\r')).toBe('\r\n');
    const canonical = 'already\r\nfine\r\n';
    expect(withCrlf(canonical)).toBe(canonical);
    expect(withCrlf('')).toBe('');
    expect(withCrlf('Grüße\n')).toBe('Grüße\r\n');
  });
});
