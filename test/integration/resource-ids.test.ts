/**
 * Ids beyond what storage holds (32-bit on PostgreSQL) are unknown ids like any other, on every
 * route of the table that takes one: 406 in a path, the field's own error in a body, never a 500.
 * The fuzzer found these as 500s on PostgreSQL ("integer out of range").
 */
import { beforeAll, describe, it } from 'vitest';
import { apiRoutes } from '../../src/http/routes/index.js';
import { useTestApi } from '../support/api.js';
import { expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';
import { routeExample, routeKey } from '../support/route-examples.js';

const NUMERIC_ID = /:(subaccount|domain|ip|ippool|tpsp|webhook)_id/g;
const routes = apiRoutes.filter((route) => NUMERIC_ID.test(route.path) && (NUMERIC_ID.lastIndex = 0) === 0);

describe.each(storeKinds)('ids beyond storage (%s)', (kind) => {
  const api = useTestApi(kind, {}, { scope: 'describe' });
  let subKey: string;
  beforeAll(async () => {
    subKey = (await api.createSubAccount('ids')).apiKey;
  });

  it.each(routes.map((route) => [routeKey(route), route] as const))(
    '%s answers 406 for 2147483648 and 9007199254740991',
    async (_key, route) => {
      const refs = {
        salt: 'ids',
        ips: ['10.1.2.3'],
        poolIps: [],
        tpspIds: [],
        poolName: 'none',
        domainName: 'ids.test',
        emails: ['a@example.org'],
        group: 'g',
        webhookUrl: 'https://example.com/h',
      };
      const { query, body } = routeExample(route, refs);
      const key = route.auth === 'account' ? { account: api.accountKey } : { sub: subKey };
      for (const id of ['2147483648', '9007199254740991']) {
        const result = await api.call(route.method, route.path.replace(NUMERIC_ID, id), { ...key, query, body });
        expectError(result, 406);
      }
    },
  );

  it('a pool naming TPSP 2147483648 is refused as naming an unknown TPSP', async () => {
    const result = await api.call('POST', '/account/ippool', {
      account: api.accountKey,
      body: { name: 'big', tpsps: [2147483648] },
    });
    expectError(result, 422, 'TPSP_NOT_FOUND');
  });
});
