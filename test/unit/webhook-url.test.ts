import { describe, expect, it } from 'vitest';
import { parseWebhookUrl, toggleForEventType } from '../../src/webhook/index.js';

describe('parseWebhookUrl', () => {
  it('accepts http and https URLs and answers their normalised form', () => {
    expect(parseWebhookUrl('https://app.hooli.com/email/webhook')).toEqual({
      ok: true,
      url: 'https://app.hooli.com/email/webhook',
    });
    expect(parseWebhookUrl('HTTPS://App.Hooli.COM:443')).toEqual({ ok: true, url: 'https://app.hooli.com/' });
    expect(parseWebhookUrl('http://127.0.0.1:3000/hook?x=1&y=a@b')).toEqual({
      ok: true,
      url: 'http://127.0.0.1:3000/hook?x=1&y=a@b',
    });
    expect(parseWebhookUrl('https://bücher.example/')).toEqual({ ok: true, url: 'https://xn--bcher-kva.example/' });
    expect(parseWebhookUrl('http://[::1]:8080/')).toEqual({ ok: true, url: 'http://[::1]:8080/' });
  });

  it('refuses other schemes, credentials, fragments, whitespace and control characters', () => {
    for (const bad of [
      'ftp://example.com/',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'data:text/plain,hi',
      'mailto:a@b.c',
      'https://user:pass@example.com/',
      'https://user@example.com/',
      'https://:@example.com/',
      'https://example.com/#frag',
      'https://example.com/#',
      'https://example.com/a\r\nX-Injected: 1',
      'https://example.com/\t',
      ' https://example.com/',
      'https://exa mple.com/',
      'https://example.com/\u0000',
      '//example.com/',
      '/relative',
      'https://',
      'https:///',
      '',
    ]) {
      expect(parseWebhookUrl(bad).ok, JSON.stringify(bad)).toBe(false);
    }
  });

  it('accepts 2048 characters and refuses 2049, before and after normalisation', () => {
    const base = 'https://example.com/';
    expect(parseWebhookUrl(base + 'a'.repeat(2048 - base.length)).ok).toBe(true);
    expect(parseWebhookUrl(base + 'a'.repeat(2049 - base.length)).ok).toBe(false);
    // 700 characters that each become %XX: short as given, too long as it would be called
    expect(parseWebhookUrl(base + 'é'.repeat(700)).ok).toBe(false);
  });
});

describe('toggleForEventType', () => {
  it('maps the spec event types 0-8 to the reference switch names', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8].map(toggleForEventType)).toEqual([
      'processed',
      'dropped',
      'delivered',
      'softBounced',
      'hardBounced',
      'opened',
      'clicked',
      'unsubscribed',
      'spam',
    ]);
    // mailplane's Cancelled (a scheduled message cancelled before its send) goes with dropped.
    expect(toggleForEventType(9)).toBe('dropped');
    expect(toggleForEventType(10)).toBeUndefined();
    expect(toggleForEventType(-1)).toBeUndefined();
    expect(toggleForEventType(1.5)).toBeUndefined();
  });
});
