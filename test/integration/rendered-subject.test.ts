/**
 * A message's `renderedSubject` (docs/activity.md): the subject as its recipient got it, beside the
 * accepted `subject` template, on `GET …/message/{id}` and the activity list,
 * for the account's and the sub-account's key, on SQLite and PostgreSQL. The instance is not
 * started: a queued message's subject renders the same as the one delivery will send.
 */
import { describe, expect, it } from 'vitest';
import { useTestApi } from '../support/api.js';
import { storeKinds } from '../support/databases.js';
import { createSender } from '../support/sending.js';

describe.each(storeKinds)('rendered subjects (%s)', (kind) => {
  const api = useTestApi(kind);
  it('answers the subject each recipient got beside the template, and a plain subject as it is', async () => {
    const sender = await createSender(api, 'Acme', 'acme.test');
    const key = sender.subAccount.apiKey;
    const sent = await api.call('POST', '/subaccount/email', {
      sub: key,
      body: {
        from: { email: 'news@acme.test' },
        to: [
          { email: 'ada@example.com', customFields: { firstName: 'Ada' } },
          { email: 'bob@example.com', customFields: { firstName: 'Bob & <Co>' } },
        ],
        subject: 'Welcome, {{firstName}}',
        textBody: 'Hi',
      },
    });
    expect(sent.status, sent.text).toBe(200);
    const plain = await api.call('POST', '/subaccount/email', {
      sub: key,
      body: {
        from: { email: 'news@acme.test' },
        to: [{ email: 'cy@example.com' }],
        subject: 'No fields',
        textBody: 'x',
      },
    });
    expect(plain.status, plain.text).toBe(200);
    const [ada, bob] = sent.body.map((entry: { messageId: string }) => entry.messageId);

    for (const auth of [{ account: api.accountKey }, { sub: key }]) {
      const prefix = 'account' in auth ? '/account' : '/subaccount';
      const one = await api.call('GET', `${prefix}/message/${ada}`, auth);
      expect(one.status, one.text).toBe(200);
      expect(one.body).toMatchObject({ subject: 'Welcome, {{firstName}}', renderedSubject: 'Welcome, Ada' });
      // A subject is text, not HTML: nothing is escaped.
      const other = await api.call('GET', `${prefix}/message/${bob}`, auth);
      expect(other.body.renderedSubject).toBe('Welcome, Bob & <Co>');

      const list = await api.call('GET', `${prefix}/message`, { ...auth, query: { limit: 10 } });
      expect(list.status, list.text).toBe(200);
      const subjects = Object.fromEntries(
        list.body.items.map((m: { to: { email: string }; renderedSubject: string }) => [m.to.email, m.renderedSubject]),
      );
      expect(subjects).toEqual({
        'ada@example.com': 'Welcome, Ada',
        'bob@example.com': 'Welcome, Bob & <Co>',
        'cy@example.com': 'No fields',
      });
    }
  });
});
