/**
 * Headers that must be given once, sent twice over a real socket through each bridge (node:http,
 * Express, Koa). node joins a repeated `Idempotency-Key: a` / `Idempotency-Key: b` into `"a, b"` and
 * keeps the first of a repeated `Authorization`; the bridges pass a repeated header on as the array of
 * its values, so the key headers, the idempotency key and the dashboard's single-value headers are
 * refused with a 422 instead of being read as one value.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTestApi } from '../support/api.js';
import { BRIDGES, startBridgeServer, type BridgeServer } from '../support/bridge-server.js';
import { storeKinds } from '../support/databases.js';
import { rawCall, type RawAnswer } from '../support/raw-http.js';
import { createSender, sendBody, type Sender } from '../support/sending.js';

const codeOf = (answer: RawAnswer): unknown => (JSON.parse(answer.body) as { code?: unknown }).code;

describe.each(storeKinds)('repeated single-value headers (%s)', (kind) => {
  const api = useTestApi(kind);
  let shop: Sender;
  let server: BridgeServer | undefined;

  beforeEach(async () => {
    shop = await createSender(api, 'shop', 'shop.example.com');
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const processed = async (): Promise<number> => {
    const today = new Date().toISOString().slice(0, 10);
    return (
      await api.call('GET', '/subaccount/stat/aggregate', {
        sub: shop.subAccount.apiKey,
        query: { from: '2026-01-01', to: today },
      })
    ).body.processed as number;
  };

  describe.each(BRIDGES)('through the %s bridge', (bridge) => {
    it('refuses a repeated Idempotency-Key with 422 and sends nothing; a retry with one of the keys is a first send', async () => {
      server = await startBridgeServer(bridge, api);
      const body = JSON.stringify(sendBody('news@shop.example.com', ['a@example.org']));
      const send = (...keys: string[]) =>
        rawCall(
          server!.port,
          'POST',
          '/api/v1/subaccount/email',
          [
            ['Content-Type', 'application/json'],
            ['X-SubAccount-ApiKey', shop.subAccount.apiKey],
            ...keys.map((key) => ['Idempotency-Key', key] as const),
          ],
          body,
        );

      const repeated = await send('order-a', 'order-b');
      expect(repeated.status).toBe(422);
      expect(codeOf(repeated)).toBe('IDEMPOTENCY_KEY_INVALID');
      expect(JSON.parse(repeated.body).message).toMatch(/once/);
      expect(await processed()).toBe(0);

      // Nothing was stored under "order-a, order-b" or either key: the retry sends, its repeat replays.
      const retry = await send('order-a');
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      const replay = await send('order-a');
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(await processed()).toBe(1);
    });

    it('refuses a repeated key header with 422 HEADER_REPEATED, even when both copies are the same valid key', async () => {
      server = await startBridgeServer(bridge, api);
      const sameTwice = await rawCall(server.port, 'GET', '/api/v1/subaccount/domain', [
        ['X-SubAccount-ApiKey', shop.subAccount.apiKey],
        ['x-subaccount-apikey', shop.subAccount.apiKey],
      ]);
      expect(sameTwice.status).toBe(422);
      expect(codeOf(sameTwice)).toBe('HEADER_REPEATED');
      const accountAndGarbage = await rawCall(server.port, 'GET', '/api/v1/account/subaccount', [
        ['X-Account-ApiKey', api.accountKey],
        ['X-Account-ApiKey', 'mpak_other'],
      ]);
      expect(accountAndGarbage.status).toBe(422);
      expect(codeOf(accountAndGarbage)).toBe('HEADER_REPEATED');
      expect(accountAndGarbage.body).not.toContain(shop.subAccount.apiKey);
      // Given once, the same key is served as always.
      expect(
        (await rawCall(server.port, 'GET', '/api/v1/account/subaccount', [['X-Account-ApiKey', api.accountKey]]))
          .status,
      ).toBe(200);
    });

    it("refuses the dashboard's repeated CSRF token and sub-account header", async () => {
      server = await startBridgeServer(bridge, api);
      const signIn = await rawCall(
        server.port,
        'POST',
        '/dashboard/session',
        [
          ['Content-Type', 'application/json'],
          ['Origin', 'http://127.0.0.1'],
        ],
        JSON.stringify({ apiKey: api.accountKey }),
      );
      expect(signIn.status).toBe(200);
      const cookie = signIn.headers['set-cookie']!.split(';')[0]!;
      const csrf = (JSON.parse(signIn.body) as { csrfToken: string }).csrfToken;
      const session = [
        ['Cookie', cookie],
        ['Content-Type', 'application/json'],
      ] as const;

      const twoTokens = await rawCall(
        server.port,
        'POST',
        '/dashboard/api/v1/account/subaccount',
        [...session, ['X-CSRF-Token', csrf], ['X-CSRF-Token', 'forged']],
        '{"name":"x"}',
      );
      expect(twoTokens.status).toBe(422);
      expect(codeOf(twoTokens)).toBe('HEADER_REPEATED');
      const twoSubAccounts = await rawCall(server.port, 'GET', '/dashboard/api/v1/subaccount/domain', [
        ...session,
        ['X-Dashboard-Subaccount', String(shop.subAccount.id)],
        ['X-Dashboard-Subaccount', '1'],
      ]);
      expect(twoSubAccounts.status).toBe(422);
      expect(codeOf(twoSubAccounts)).toBe('HEADER_REPEATED');
      // Once each, both work.
      const domains = await rawCall(server.port, 'GET', '/dashboard/api/v1/subaccount/domain', [
        ...session,
        ['X-Dashboard-Subaccount', String(shop.subAccount.id)],
      ]);
      expect(domains.status).toBe(200);
      expect(domains.body).toContain('shop.example.com');
      expect(await api.call('GET', '/account/subaccount', { account: api.accountKey }).then((r) => r.body.length)).toBe(
        2,
      );
    });
  });
});
