/**
 * The dashboard's logic without a browser: the overview's date range, labels,
 * the activity query, hash routes (src/dashboard/ui/format.ts) and the cookie helpers (src/dashboard/).
 */
import { describe, expect, it } from 'vitest';
import {
  activityQuery,
  inBatches,
  poolRequestBody,
  warmupStages,
  eventIsProblem,
  eventName,
  formatNs,
  lastDays,
  parseRoute,
} from '../../src/dashboard/ui/format.js';
import { readCookie, sessionCookie } from '../../src/dashboard/cookies.js';

describe('dashboard overview logic', () => {
  it('takes the 30 UTC days ending today, across a month end', () => {
    expect(lastDays(Date.UTC(2026, 2, 1, 23, 59), 30)).toEqual({ from: '2026-01-31', to: '2026-03-01' });
    expect(lastDays(Date.UTC(2026, 10, 25), 1)).toEqual({ from: '2026-11-25', to: '2026-11-25' });
  });

  it('runs the comparison’s requests a few at a time, answers in order', async () => {
    let running = 0;
    let most = 0;
    const answers = await inBatches([5, 1, 3, 2, 4, 0], 2, async (n) => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, n));
      running--;
      return n * 10;
    });
    expect(answers).toEqual([50, 10, 30, 20, 40, 0]);
    expect(most).toBe(2);
    expect(await inBatches([], 4, async () => 1)).toEqual([]);
  });

  it('writes a pool form as the API’s body: the name only when changed, {} for round robin, no overflow pool without overflow, the TPSP members by id', () => {
    const draft = {
      name: ' Bulk ',
      routingStrategy: 0,
      routingMetaData: '{"x":1}',
      shouldOverflow: false,
      overflowPoolName: 'Shared',
      warmupInterval: '48',
      ips: ['192.0.2.1'],
      tpsps: [3],
    };
    expect(poolRequestBody(draft)).toEqual({
      name: 'Bulk',
      routingStrategy: 0,
      routingMetaData: '{}',
      shouldOverflow: false,
      overflowPoolName: '',
      warmupInterval: 48,
      ips: [{ publicIp: '192.0.2.1' }],
      tpsps: [3],
    });
    const edited = poolRequestBody(
      { ...draft, name: 'Shared', routingStrategy: 2, shouldOverflow: true, warmupInterval: '' },
      { name: 'Shared' },
    );
    expect(edited).toEqual({
      routingStrategy: 2,
      routingMetaData: '{"x":1}',
      shouldOverflow: true,
      overflowPoolName: 'Shared',
      ips: [{ publicIp: '192.0.2.1' }],
      tpsps: [3],
    });
  });

  it('formats nanosecond times, and names event types', () => {
    expect(formatNs(1795570942208791000)).toBe('2026-11-25 01:42:22 UTC');
    expect(formatNs(0)).toBe('—');
    expect(eventName(2)).toBe('Delivered');
    expect(eventName(42)).toBe('Event 42');
    expect([0, 1, 2, 3, 4, 8].map(eventIsProblem)).toEqual([false, true, false, true, true, true]);
  });

  it('builds the activity query from the filled fields and the cursor, and reads hash routes', () => {
    expect(activityQuery({ recipient: ' ada@example.com ', sender: '', status: 'delivered' }, 'abc').toString()).toBe(
      'recipient=ada%40example.com&status=delivered&cursor=abc&limit=50',
    );
    expect(parseRoute('')).toEqual({ page: 'overview', arg: undefined });
    expect(parseRoute('#/message/01a2%2Fx')).toEqual({ page: 'message', arg: '01a2/x' });
    expect(parseRoute('#/domains/7')).toEqual({ page: 'domains', arg: '7' });
  });
});

describe('dashboard server helpers', () => {
  it('reads its cookie among others and writes HttpOnly SameSite=Strict, Secure only over TLS', () => {
    expect(readCookie({ cookie: 'a=1; mailplane_dashboard=xyz; b=2' }, 'mailplane_dashboard')).toBe('xyz');
    expect(readCookie({ cookie: ['a=1', 'mailplane_dashboard=q'] }, 'mailplane_dashboard')).toBe('q');
    expect(readCookie({}, 'mailplane_dashboard')).toBeUndefined();
    expect(sessionCookie('v', { path: '/dashboard', secure: false }, 60)).toBe(
      'mailplane_dashboard=v; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=60',
    );
    expect(sessionCookie('v', { path: '/', secure: true }, 0)).toMatch(/; Secure$/);
  });
});

describe('dashboard sandbox inbox: MIME', () => {
  it('reads folded headers and the text and HTML parts of a nested multipart, in their encodings', async () => {
    const { parseMail } = await import('../../src/dashboard/ui/mime.js');
    const raw = [
      'From: Acme <hello@acme.test>',
      'Subject: =?UTF-8?Q?Caf=C3=A9?=',
      'DKIM-Signature: v=1; a=rsa-sha256;',
      '\td=acme.test; s=mp1',
      'Content-Type: multipart/mixed; boundary="outer"',
      '',
      '--outer',
      'Content-Type: multipart/alternative; boundary=inner',
      '',
      '--inner',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      'Caf=C3=A9 au lait, a long line that is =',
      'soft-broken',
      '--inner',
      'Content-Type: text/html; charset=utf-8',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('<p>Café <b>au lait</b></p>').toString('base64'),
      '--inner--',
      '--outer--',
      '',
    ].join('\r\n');
    const mail = parseMail(raw);
    expect(mail.headers.map((h) => h.name)).toEqual(['From', 'Subject', 'DKIM-Signature', 'Content-Type']);
    expect(mail.headers[2]!.value).toBe('v=1; a=rsa-sha256; d=acme.test; s=mp1');
    expect(mail.text).toBe('Café au lait, a long line that is soft-broken');
    expect(mail.html).toBe('<p>Café <b>au lait</b></p>');
    expect(parseMail('Subject: plain\r\n\r\nHello!\r\n')).toEqual({
      headers: [{ name: 'Subject', value: 'plain' }],
      text: 'Hello!\r\n',
      html: undefined,
    });
  });
});

describe('dashboard IPs page', () => {
  it("reads each provider's warmup stage from the plan's JSON-string fields, skipping what it cannot read", () => {
    const plan = {
      gmailWarmupPlan: JSON.stringify({ stage: 2, dailyLimit: 500, sentToday: 12, stages: [] }),
      yahooWarmupPlan: '{',
      defaultWarmupPlan: JSON.stringify({ stage: 6, dailyLimit: null, sentToday: 3 }),
    };
    expect(warmupStages(plan)).toEqual([
      { provider: 'gmail', text: 'stage 2, 12/500 today' },
      { provider: 'default', text: 'stage 6, 3/∞ today' },
    ]);
    expect(warmupStages(undefined)).toEqual([]);
  });
});
