/**
 * A NUL character (or another control character) in a search, a group or a send's text fields is
 * refused or harmless on both databases, never a 500 (PostgreSQL cannot hold U+0000 in text). The
 * route fuzzer found `search=%00` answering 500 on PostgreSQL.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes } from '../../src/http/routes/index.js';
import { useTestApi } from '../support/api.js';
import { expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';
import { routeExample, routeKey } from '../support/route-examples.js';
import { createSender, sendBody, type Sender } from '../support/sending.js';

const listRoutes = apiRoutes.filter(
  (route) => route.method === 'GET' && !route.path.includes(':') && route.query !== undefined,
);

describe.each(storeKinds)('NUL and control characters in text (%s)', (kind) => {
  const api = useTestApi(kind, {}, { scope: 'describe' });
  let sender: Sender;
  beforeAll(async () => {
    sender = await createSender(api, 'nul', 'nul.test');
  });

  const keyFor = (auth: string) =>
    auth === 'account' ? { account: api.accountKey } : { sub: sender.subAccount.apiKey };

  it.each(listRoutes.map((route) => [routeKey(route), route] as const))(
    '%s refuses a NUL in its text parameters with 422',
    async (_key, route) => {
      const refs = {
        salt: 'nul',
        ips: [],
        poolIps: [],
        tpspIds: [],
        poolName: 'p',
        domainName: 'nul.test',
        emails: [],
        group: 'g',
        webhookUrl: 'https://example.com/',
      };
      const base = routeExample(route, refs).query ?? {};
      for (const name of ['search', 'group']) {
        if (name === 'group' && !('group' in base)) continue;
        if (name === 'search' && 'from' in base && !route.path.includes('suppression')) continue;
        const result = await api.call('GET', route.path, {
          ...keyFor(route.auth),
          query: { ...base, [name]: 'a\u0000b' },
        });
        expectError(result, 422);
      }
    },
  );

  it('refuses a send whose pool name, group or recipient holds a NUL, and stores NULs in other text fields', async () => {
    const send = (extra: Record<string, unknown>) =>
      api.call('POST', '/subaccount/email', {
        sub: sender.subAccount.apiKey,
        body: sendBody('news@nul.test', ['a@example.org'], extra),
      });
    expectError(await send({ ippool: 'a\u0000b' }), 422);
    expectError(await send({ groups: ['a\u0000b'] }), 422);
    expectError(await send({ to: [{ email: 'a\u0000b@example.org' }] }), 422);
    for (const extra of [
      { subject: 'a\u0000b' },
      { textBody: 'a\u0000b' },
      { htmlBody: '<p>a\u0000b</p>' },
      { to: [{ email: 'a@example.org', customFields: { x: 'a\u0000b' } }] },
      { to: [{ email: 'a\u0007b@example.org' }] },
    ]) {
      const result = await send(extra);
      expect(result.status, `${JSON.stringify(extra)}: ${result.text}`).toBeLessThan(500);
    }
  });
});
