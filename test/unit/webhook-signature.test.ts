import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import {
  generateWebhookSecret,
  signWebhookPayload,
  standardWebhookHeaders,
  verifyWebhookSignature,
} from '../../src/webhook/index.js';

const secret = 'whsec_test0123456789abcdefghijklmnopq';
const body = '{"event":{"eventID":"e1"}}';
const t = 1_700_000_000;
// Computed independently: printf '1700000000.<body>' | openssl dgst -sha256 -hmac "$secret"
const expectedMac = '2d05928a8c2b0e3efe3029e16c1e37c4e2f0b4ef90eb1a6d211087a9484bf90e';

describe('signWebhookPayload', () => {
  it('writes t=<seconds>,v1=<hex HMAC-SHA256 of "t.body">', () => {
    expect(signWebhookPayload(secret, t, body)).toBe(`t=${t},v1=${expectedMac}`);
  });

  it('signs bytes and the same text identically', () => {
    expect(signWebhookPayload(secret, t, Buffer.from(body))).toBe(signWebhookPayload(secret, t, body));
  });

  it('refuses a timestamp that is not whole seconds', () => {
    expect(() => signWebhookPayload(secret, 1.5, body)).toThrow(RangeError);
    expect(() => signWebhookPayload(secret, Date.now() * 1e6, body)).toThrow(RangeError);
  });
});

describe('verifyWebhookSignature', () => {
  const header = signWebhookPayload(secret, t, body);

  it('accepts a genuine delivery inside the window', () => {
    expect(verifyWebhookSignature(secret, header, body, 300, t)).toEqual({ ok: true, timestamp: t });
    expect(verifyWebhookSignature(secret, header, Buffer.from(body), 300, t + 300)).toEqual({ ok: true, timestamp: t });
    expect(verifyWebhookSignature(secret, header, body, 300, t - 300).ok).toBe(true);
  });

  it('refuses a tampered body, a tampered timestamp, a tampered MAC and the wrong secret', () => {
    const mismatch = { ok: false, reason: 'signature-mismatch' };
    expect(verifyWebhookSignature(secret, header, body.replace('e1', 'e2'), 300, t)).toEqual(mismatch);
    expect(verifyWebhookSignature(secret, header, `${body} `, 300, t)).toEqual(mismatch);
    expect(verifyWebhookSignature(secret, header.replace(`t=${t}`, `t=${t + 1}`), body, 300, t)).toEqual(mismatch);
    const flipped = header.slice(0, -1) + (header.endsWith('0') ? '1' : '0');
    expect(verifyWebhookSignature(secret, flipped, body, 300, t)).toEqual(mismatch);
    expect(verifyWebhookSignature(`${secret}x`, header, body, 300, t)).toEqual(mismatch);
  });

  it('refuses a replay outside the window and a timestamp from the future', () => {
    const late = { ok: false, reason: 'timestamp-out-of-tolerance' };
    expect(verifyWebhookSignature(secret, header, body, 300, t + 301)).toEqual(late);
    expect(verifyWebhookSignature(secret, header, body, 300, t - 301)).toEqual(late);
    // a fresh signature over an old body is what a sender would make; the old header is not
    expect(verifyWebhookSignature(secret, signWebhookPayload(secret, t + 3600, body), body, 300, t + 3600).ok).toBe(
      true,
    );
  });

  it('accepts a header with several v1 values when one matches, and skips unknown schemes', () => {
    const other = signWebhookPayload('whsec_other', t, body).split(',')[1];
    expect(verifyWebhookSignature(secret, `t=${t},${other},v1=${expectedMac}`, body, 300, t).ok).toBe(true);
    expect(verifyWebhookSignature(secret, `t=${t}, v0=abc, v1=${expectedMac}`, body, 300, t).ok).toBe(true);
    expect(verifyWebhookSignature(secret, `t=${t},${other}`, body, 300, t)).toEqual({
      ok: false,
      reason: 'signature-mismatch',
    });
  });

  it('refuses malformed headers', () => {
    for (const bad of [
      undefined,
      '',
      `v1=${expectedMac}`,
      `t=${t}`,
      `t=abc,v1=${expectedMac}`,
      `t=${t},t=${t},v1=${expectedMac}`,
      `t=${t},v1=${expectedMac.slice(2)}`,
      `t=${t},v1=${'z'.repeat(64)}`,
      `t=-5,v1=${expectedMac}`,
      `t=${t};v1=${expectedMac}`,
    ]) {
      expect(verifyWebhookSignature(secret, bad, body, 300, t), String(bad)).toEqual({
        ok: false,
        reason: 'malformed-header',
      });
    }
  });

  it('defaults to a five-minute window on the system clock', () => {
    const now = Math.floor(Date.now() / 1000);
    expect(verifyWebhookSignature(secret, signWebhookPayload(secret, now, body), body).ok).toBe(true);
    expect(verifyWebhookSignature(secret, signWebhookPayload(secret, now - 3600, body), body).ok).toBe(false);
  });
});

describe('standardWebhookHeaders', () => {
  const standardSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

  it('signs exactly as the standardwebhooks library does, one v1 per secret, space-separated', () => {
    const other = 'whsec_QWxhZGRpbjpvcGVuIHNlc2FtZTEyMzQ1';
    const headers = standardWebhookHeaders([standardSecret, other], 'msg_p5jXN8AQM9LWM0D4loKWxJek', t, body);
    const expected = [standardSecret, other].map((s) =>
      new Webhook(s).sign('msg_p5jXN8AQM9LWM0D4loKWxJek', new Date(t * 1000), body),
    );
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': String(t),
      'webhook-signature': expected.join(' '),
    });
  });

  it('also signs a webhook secret of mailplane (32 base62 characters after whsec_)', () => {
    const secret = generateWebhookSecret();
    expect(standardWebhookHeaders([secret], 'e1', t, body)['webhook-signature']).toBe(
      new Webhook(secret).sign('e1', new Date(t * 1000), body),
    );
  });
});
