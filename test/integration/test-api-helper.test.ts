/**
 * The shared set-up of the API tests (`useTestApi`, test/support/api.ts): what a test written with it
 * may rely on. Each test gets an instance on a database of its own, built from options made afresh
 * for it; a block may share one instance instead; outside the tests there is no instance to use.
 */
import { describe, expect, it } from 'vitest';
import { manualClock } from 'mailplane';
import { useTestApi, type TestApiHandle } from '../support/api.js';
import { storeKinds } from '../support/databases.js';

const START = Date.UTC(2026, 0, 1);

const subAccountNames = async (api: TestApiHandle): Promise<string[]> =>
  (await api.call('GET', '/account/subaccount', { account: api.accountKey })).body.map((s: { name: string }) => s.name);

describe.each(storeKinds)('useTestApi on %s', (kind) => {
  describe('one instance per test', () => {
    const clocks: Array<ReturnType<typeof manualClock>> = [];
    const api = useTestApi(kind, () => {
      clocks.push(manualClock(START));
      return { clock: clocks.at(-1)! };
    });
    const urls: string[] = [];

    it('gives the first test an instance with the options built for it, and a sub-account with its key', async () => {
      urls.push(api.url);
      const created = await api.createSubAccount('first');
      expect(created).toMatchObject({ name: 'first', apiKey: expect.any(String), id: expect.any(Number) });
      expect((await api.call('GET', '/subaccount/domain', { sub: created.apiKey })).status).toBe(200);
      expect(await subAccountNames(api)).toEqual(['Default', 'first']);
      expect(clocks).toHaveLength(1);
    });

    it('gives the next test a fresh database and options built afresh', async () => {
      urls.push(api.url);
      expect(urls[1]).not.toBe(urls[0]);
      expect(await subAccountNames(api)).toEqual(['Default']);
      expect(clocks).toHaveLength(2);
    });

    it("creates a sub-account of another account's key when given one", async () => {
      const other = await api.mailplane.createAccount({ name: 'other' });
      await api.createSubAccount('theirs', other.apiKey);
      expect(await subAccountNames(api)).toEqual(['Default']);
      await expect(api.createSubAccount('refused', 'mpak_not-a-key')).rejects.toThrow(/sub-account refused: 401/);
    });
  });

  describe('one instance per block', () => {
    const api = useTestApi(kind, {}, { scope: 'describe' });

    it('keeps what the first test wrote', async () => {
      await api.createSubAccount('kept');
    });

    it('for the next test of the block', async () => {
      expect(await subAccountNames(api)).toEqual(['Default', 'kept']);
    });
  });
});

describe('useTestApi outside its block', () => {
  let elsewhere: TestApiHandle | undefined;
  describe('a block with an instance', () => {
    elsewhere = useTestApi('sqlite');
    it('has one in its tests', () => {
      expect(elsewhere!.accountKey).toMatch(/^mpak_/);
    });
  });

  it('refuses to be read where no instance was opened, naming the helper', () => {
    expect(() => elsewhere!.accountKey).toThrow(/useTestApi/);
    expect(() => elsewhere!.call('GET', '/account/subaccount')).toThrow(/useTestApi/);
  });
});
