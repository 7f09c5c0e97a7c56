import { beforeEach, describe, expect, it } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { createSecretBox, nowNs, systemClock } from 'mailplane';
import { unsubscribeUrl } from '../../src/tracking/links.js';
import { useTestApi } from '../support/api.js';
import { execSql, storeKinds } from '../support/databases.js';
import { createSender, sendBody, type Sender } from '../support/sending.js';

describe.each(storeKinds)('unsubscribe links on %s', (kind) => {
  const api = useTestApi(kind);
  let sender: Sender;
  const today = () => new Date().toISOString().slice(0, 10);
  const follow = async (method: 'GET' | 'POST', url: string) => {
    const path = new URL(url).pathname.replace(/^\/t/, '');
    return api.mailplane.handleLinks({
      method,
      path,
      headers: method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
      query: new URLSearchParams(),
      rawBody: method === 'POST' ? 'List-Unsubscribe=One-Click' : '',
    });
  };

  beforeEach(async () => {
    sender = await createSender(api, 'news', 'news.example.com');
  });

  const sendTo = async (to: string[], extra: Record<string, unknown> = {}) =>
    (
      await api.call('POST', '/subaccount/email', {
        sub: sender.subAccount.apiKey,
        body: sendBody('hi@news.example.com', to, extra),
      })
    ).body;

  it('suppresses the recipient for that sub-account, records one Unsubscribed event and counts it once', async () => {
    const [entry] = await sendTo(['Reader@Example.org'], { groups: ['weekly'] });
    const url = unsubscribeUrl(contextOf(api.mailplane), entry.messageId);
    const first = await follow('GET', url);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toContain('text/html');
    expect(first.body).toContain('Reader@Example.org will no longer receive');
    expect((await follow('GET', url)).status).toBe(200);
    expect((await follow('POST', url)).status).toBe(200);

    const suppressions = await api.call('GET', '/subaccount/suppression', { sub: sender.subAccount.apiKey });
    expect(suppressions.body.map((s: { email: string }) => s.email)).toEqual(['Reader@Example.org']);
    const message = await api.call('GET', `/account/message/${entry.messageId}`, { account: api.accountKey });
    expect(message.body.events.filter((e: { type: number }) => e.type === 7)).toHaveLength(1);
    const stats = await api.call('GET', '/subaccount/stat/aggregate', {
      sub: sender.subAccount.apiKey,
      query: { from: today(), to: today() },
    });
    expect(stats.body.unsubscribed).toBe(1);
    const group = await api.call('GET', `/account/subaccount/stat/${sender.subAccount.id}/group`, {
      account: api.accountKey,
      query: { from: today(), to: today(), group: 'weekly' },
    });
    expect(group.body.unsubscribed).toBe(1);

    const [again] = await sendTo(['reader@example.org']);
    expect(again.errorCode).toBe(2);
  });

  it('accepts the RFC 8058 one-click POST', async () => {
    const [entry] = await sendTo(['one@example.org']);
    const response = await follow('POST', unsubscribeUrl(contextOf(api.mailplane), entry.messageId));
    expect(response.status).toBe(200);
    expect(
      await contextOf(api.mailplane).store.suppressions.isSuppressed(
        sender.subAccount.id,
        'one@example.org',
        nowNs(systemClock),
      ),
    ).toBe(true);
  });

  it('refuses forged, altered and foreign tokens and changes nothing', async () => {
    const [entry] = await sendTo(['keep@example.org']);
    const url = unsubscribeUrl(contextOf(api.mailplane), entry.messageId);
    const token = url.split('/').at(-1)!;
    const [action, id, signature] = token.split('.') as [string, string, string];
    const otherId = '00000000-0000-4000-8000-000000000000';
    for (const forged of [
      `${action}.${otherId}.${signature}`,
      `o.${id}.${signature}`,
      `${action}.${id}.${signature.slice(0, -2)}AA`,
      `${action}.${id}`,
      'x'.repeat(300),
      '..',
    ]) {
      const response = await follow('GET', `http://h/t/unsubscribe/${forged}`);
      expect(response.status, forged).toBe(404);
    }
    expect((await follow('GET', 'http://h/t/elsewhere')).status).toBe(404);
    // a token signed under another instance secret is not valid here
    const foreignSecrets = createSecretBox('another-instance-secret-another-instance-secret');
    const foreignUrl = unsubscribeUrl({ ...contextOf(api.mailplane), secrets: foreignSecrets }, entry.messageId);
    expect(foreignUrl).not.toBe(url);
    expect((await follow('GET', foreignUrl)).status).toBe(404);
    expect(
      await contextOf(api.mailplane).store.suppressions.isSuppressed(
        sender.subAccount.id,
        'keep@example.org',
        nowNs(systemClock),
      ),
    ).toBe(false);
  });

  it('answers 503 with Retry-After when the suppression cannot be written, and suppresses once the store is back', async () => {
    const [entry] = await sendTo(['later@example.org']);
    const url = unsubscribeUrl(contextOf(api.mailplane), entry.messageId);
    await execSql(api.url, 'ALTER TABLE suppressions RENAME TO suppressions_away');
    for (const method of ['GET', 'POST'] as const) {
      const response = await follow(method, url);
      expect(response.status, method).toBe(503);
      expect(response.headers['retry-after'], method).toBe('5');
      expect(response.body).toContain('Please try the link again later');
    }
    await execSql(api.url, 'ALTER TABLE suppressions_away RENAME TO suppressions');
    expect((await follow('GET', url)).status).toBe(200);
    expect(
      await contextOf(api.mailplane).store.suppressions.isSuppressed(
        sender.subAccount.id,
        'later@example.org',
        nowNs(systemClock),
      ),
    ).toBe(true);
  });

  it('answers 410 Gone, not a 5xx, for a link of a deleted sub-account, and records nothing', async () => {
    const [entry] = await sendTo(['late@example.org']);
    const url = unsubscribeUrl(contextOf(api.mailplane), entry.messageId);
    expect(
      (await api.call('DELETE', `/account/subaccount/${sender.subAccount.id}`, { account: api.accountKey })).status,
    ).toBe(200);
    // Before: 503 'Please try again' (the suppression's foreign key failed), for ever.
    for (const method of ['GET', 'POST', 'GET'] as const) {
      const response = await follow(method, url);
      expect(response.status, method).toBe(410);
      expect(response.body).toContain('no longer exists');
    }
    const message = await api.call('GET', `/account/message/${entry.messageId}`, { account: api.accountKey });
    expect(message.body.events.map((e: { type: number }) => e.type)).not.toContain(7);
  });
});
