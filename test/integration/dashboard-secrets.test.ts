/**
 * A sub-account's API key and SMTP passwords through the dashboard, with a real account session,
 * through each bridge: shown in the answer that creates the sub-account and never again, whatever
 * spelling of the path reaches the API route (`%33` for `3`, encoded slashes, doubled and trailing
 * slashes, dot segments) and whichever answer carries them (a read, the list, a rename). The API
 * itself, called with the account key, still answers them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { useTestApi } from '../support/api.js';
import { BRIDGES, startBridgeServer, type BridgeServer } from '../support/bridge-server.js';
import { storeKinds } from '../support/databases.js';
import { rawCall, type RawAnswer } from '../support/raw-http.js';

interface SubAccountAnswer {
  id: number;
  name: string;
  apiKey: string | null;
  smtpAuths: { username: string; password: string | null }[];
}

/** Every digit of `id` percent-encoded (`3` is `%33`). */
const encodedId = (id: number): string => [...String(id)].map((digit) => `%3${digit}`).join('');

describe.each(storeKinds)('sub-account secrets through the dashboard (%s)', (kind) => {
  const api = useTestApi(kind);
  let server: BridgeServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  describe.each(BRIDGES)('through the %s bridge', (bridge) => {
    it('shows the key and SMTP password in the creation answer only, for every spelling of every path', async () => {
      server = await startBridgeServer(bridge, api);
      const port = server.port;
      const signIn = await rawCall(
        port,
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
      const call = (method: string, target: string, body = '') =>
        rawCall(
          port,
          method,
          target,
          [
            ['Cookie', cookie],
            ['X-CSRF-Token', csrf],
            ['Content-Type', 'application/json'],
          ],
          body,
        );

      const created = await call('POST', '/dashboard/api/v1/account/subaccount', JSON.stringify({ name: 'acme' }));
      expect(created.status).toBe(201);
      const made = JSON.parse(created.body) as SubAccountAnswer;
      expect(made.apiKey).toMatch(/^mpsk_/);
      expect(made.smtpAuths.length).toBeGreaterThan(0);
      const secrets = [made.apiKey!, ...made.smtpAuths.map((auth) => auth.password!)];
      const id = made.id;
      const holdsNoSecret = (answer: RawAnswer, target: string) => {
        for (const secret of secrets) expect(answer.body, `${target} answered a secret`).not.toContain(secret);
      };

      // Every spelling the API route answers: the sub-account, with its secrets null.
      const reads = [
        `/dashboard/api/v1/account/subaccount/${id}`,
        `/dashboard/api/v1/account/subaccount/${encodedId(id)}`,
        `/dashboard/api/v1/account/subaccount/${id}/`,
        `/dashboard/api/v1/account/subaccount/${encodedId(id)}/`,
        `/dashboard/api/v1/account/subaccount/${id}?x=1`,
        `/dashboard/api/v1/account/other/../subaccount/${encodedId(id)}`,
        `/dashboard/api/v1/account/subaccount/./${id}`,
      ];
      for (const target of reads) {
        const answer = await call('GET', target);
        expect(answer.status, target).toBe(200);
        const read = JSON.parse(answer.body) as SubAccountAnswer;
        expect(read.name, target).toBe('acme');
        expect(read.apiKey, target).toBeNull();
        expect(
          read.smtpAuths.every((auth) => auth.password === null),
          target,
        ).toBe(true);
        holdsNoSecret(answer, target);
      }
      // The list, in every spelling.
      for (const target of [
        '/dashboard/api/v1/account/subaccount',
        '/dashboard/api/v1/account/subaccount/',
        '/dashboard/api/v1/account/subaccount?limit=10',
      ]) {
        const answer = await call('GET', target);
        expect(answer.status, target).toBe(200);
        const listed = JSON.parse(answer.body) as SubAccountAnswer[];
        expect(listed.map((s) => s.name)).toContain('acme');
        expect(
          listed.every((s) => s.apiKey === null && s.smtpAuths.every((auth) => auth.password === null)),
          target,
        ).toBe(true);
        holdsNoSecret(answer, target);
      }
      // Spellings the router does not take as the route: answered with an error, never a secret.
      const misses = [
        `/dashboard/api/v1//account/subaccount/${id}`,
        `/dashboard/api/v1/account//subaccount/${id}`,
        `/dashboard/api/v1/account/subaccount//${id}`,
        `/dashboard/api/v1/account%2Fsubaccount%2F${id}`,
        `/dashboard/api/v1/account/subaccount%2F${encodedId(id)}`,
        `/dashboard/api/v1/account/subaccount/${encodedId(id)}%2F`,
        `/dashboard/api/v1/account/subaccount/${id}%2F%2E%2E`,
      ];
      for (const target of misses) {
        const answer = await call('GET', target);
        expect(answer.status, target).toBeGreaterThanOrEqual(400);
        holdsNoSecret(answer, target);
      }

      // The rename answers the sub-account too: renamed, secrets null, through either spelling.
      for (const target of [
        `/dashboard/api/v1/account/subaccount/${id}`,
        `/dashboard/api/v1/account/subaccount/${encodedId(id)}/`,
      ]) {
        const renamed = await call('PUT', target, JSON.stringify({ name: `acme-${target.length}` }));
        expect(renamed.status, target).toBe(200);
        expect((JSON.parse(renamed.body) as SubAccountAnswer).apiKey, target).toBeNull();
        holdsNoSecret(renamed, target);
      }

      // The session still acts for the sub-account (the dashboard reads its key on the server).
      const domain = await rawCall(
        port,
        'POST',
        '/dashboard/api/v1/subaccount/domain',
        [
          ['Cookie', cookie],
          ['X-CSRF-Token', csrf],
          ['Content-Type', 'application/json'],
          ['X-Dashboard-Subaccount', String(id)],
        ],
        JSON.stringify({ name: 'acme.test' }),
      );
      expect(domain.status).toBe(200);
      // The API answers the account key's own client as before.
      const direct = await rawCall(port, 'GET', `/api/v1/account/subaccount/${encodedId(id)}`, [
        ['X-Account-ApiKey', api.accountKey],
      ]);
      expect((JSON.parse(direct.body) as SubAccountAnswer).apiKey).toBe(made.apiKey);
    });
  });
});
