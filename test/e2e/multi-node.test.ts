/**
 * Several example nodes on one PostgreSQL database, as the README's "Several nodes" section runs
 * them: two with the same MAILPLANE_SECRET both serve (one without workers), and a third started
 * with another secret exits non-zero with one line saying so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl, pgUrl } from '../support/databases.js';
import { runExampleUntilExit, startExample, type ExampleServer } from '../support/example-server.js';

const SECRET = 'several-nodes-share-this-secret-0123456789';

describe.skipIf(!pgUrl)('two example nodes on one PostgreSQL', () => {
  let url: string;
  let drop: () => Promise<void>;
  const nodes: ExampleServer[] = [];

  beforeAll(async () => {
    ({ url, drop } = await freshDatabaseUrl('postgres'));
  });
  afterAll(async () => {
    for (const node of nodes) await node.stop();
    await drop?.();
  });

  it('serve with the same secret, one without workers, and refuse a node with another secret', async () => {
    const first = await startExample('express', { MAILPLANE_DATABASE_URL: url, MAILPLANE_SECRET: SECRET });
    nodes.push(first);
    const second = await startExample('koa', {
      MAILPLANE_DATABASE_URL: url,
      MAILPLANE_SECRET: SECRET,
      MAILPLANE_WORKERS: 'off',
    });
    nodes.push(second);
    expect(first.accountKey).toMatch(/^mpak_/);
    expect(second.output()).not.toMatch(/account API key/);

    // The account made by the first node is served by the second.
    const sub = await fetch(`${second.baseUrl}/account/subaccount`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-account-apikey': first.accountKey },
      body: JSON.stringify({ name: 'Shared' }),
    });
    expect(sub.status).toBe(201);
    const listed = await fetch(`${first.baseUrl}/account/subaccount`, {
      headers: { 'x-account-apikey': first.accountKey },
    });
    expect((await listed.json()) as Array<{ name: string }>).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'Shared' })]),
    );

    const ready = async (node: ExampleServer) => (await fetch(`${new URL(node.baseUrl).origin}/readyz`)).json();
    expect(await ready(first)).toMatchObject({ status: 'ready', checks: { jobRunner: 'ok' } });
    expect(await ready(second)).toMatchObject({ status: 'ready', checks: { jobRunner: 'off' } });

    const refused = await runExampleUntilExit('express', {
      MAILPLANE_DATABASE_URL: url,
      MAILPLANE_SECRET: `${SECRET}-but-another`,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      'mailplane: cannot start: this database was set up with another secret: start every node on it with the same secret (stored keys and passwords cannot be read with this one)',
    );
    expect(refused.stdout).not.toMatch(/listening on/);
  });
});
