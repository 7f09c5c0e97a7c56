import { vitest } from '../vitest.js';
import type { MailplaneStore } from '../../store/index.js';
import { sampleIncident } from './alerts.js';
import { newAccount } from './fixtures.js';

const T = 1_781_000_000_000_000_000n;

/** Incidents: one open per topic (also under concurrent opens), the timeline, resolving once, scoping. */
export function incidentStoreConformance(store: () => MailplaneStore): void {
  const { describe, expect, it } = vitest();
  describe('incidents', () => {
    it('opens an incident with its opened action, and answers the open one again for its topic', async () => {
      const account = await newAccount(store());
      const input = sampleIncident(account.id, null);
      const first = await store().incidents.open(input);
      expect(first.opened).toBe(true);
      const { started: _s, ...fields } = input;
      expect(first.incident).toMatchObject({
        ...fields,
        state: 'open',
        started: T,
        resolvedAt: null,
        resolvedBy: null,
        updated: T,
        timeline: [{ at: T, action: 'opened', actor: 'mailplane', detail: input.summary }],
      });
      const again = await store().incidents.open({ ...input, measuredValue: 40, started: T + 60n });
      expect(again).toEqual({ incident: first.incident, opened: false });
      expect(await store().incidents.findOpen(account.id, input.topic)).toEqual(first.incident);
      expect(await store().incidents.get(account.id, first.incident.id)).toEqual(first.incident);
      const otherTopic = await store().incidents.open({ ...input, topic: 'protection:ip:1' });
      expect(otherTopic.opened).toBe(true);
      expect(otherTopic.incident.id).not.toBe(first.incident.id);
    });

    it('keeps one open incident per topic when many open it at once', async () => {
      const account = await newAccount(store());
      const input = sampleIncident(account.id, null);
      const results = await Promise.all(Array.from({ length: 8 }, () => store().incidents.open(input)));
      expect(results.filter((r) => r.opened)).toHaveLength(1);
      expect(new Set(results.map((r) => r.incident.id)).size).toBe(1);
      expect(await store().incidents.list(account.id, { limit: 10, offset: 0 })).toHaveLength(1);
    });

    it('resolves once, records who did it, and frees the topic for a new incident', async () => {
      const account = await newAccount(store());
      const input = sampleIncident(account.id, null);
      const { incident } = await store().incidents.open(input);
      const resolution = { at: T + 5n, by: 'operator' as const, detail: 'list cleaned' };
      const both = await Promise.all([
        store().incidents.resolve(account.id, incident.id, resolution),
        store().incidents.resolve(account.id, incident.id, resolution),
      ]);
      expect(both.filter((r) => r.ok)).toHaveLength(1);
      expect(both.filter((r) => !r.ok)).toEqual([{ ok: false, reason: 'already-resolved' }]);
      const resolved = await store().incidents.get(account.id, incident.id);
      expect(resolved).toMatchObject({
        state: 'resolved',
        resolvedAt: T + 5n,
        resolvedBy: 'operator',
        updated: T + 5n,
      });
      expect(resolved!.timeline.map((a) => [a.action, a.actor, a.detail])).toEqual([
        ['opened', 'mailplane', input.summary],
        ['resolved', 'operator', 'list cleaned'],
      ]);
      expect(await store().incidents.findOpen(account.id, input.topic)).toBeNull();
      const next = await store().incidents.open({ ...input, started: T + 10n });
      expect(next.opened).toBe(true);
      expect(next.incident.id).not.toBe(incident.id);
      expect(await store().incidents.resolve(account.id, 2_000_000, resolution)).toEqual({
        ok: false,
        reason: 'not-found',
      });
    });

    it('appends actions to the timeline in order, bounded', async () => {
      const account = await newAccount(store());
      const { incident } = await store().incidents.open(sampleIncident(account.id, null));
      await store().incidents.addAction(account.id, incident.id, {
        at: T + 1n,
        action: 'notified',
        actor: 'mailplane',
        detail: 'x'.repeat(600),
      });
      const after = await store().incidents.addAction(account.id, incident.id, {
        at: T + 2n,
        action: 'blocked',
        actor: 'mailplane',
        detail: 'sub-account 3 blocked',
      });
      expect(after!.timeline.map((a) => a.action)).toEqual(['opened', 'notified', 'blocked']);
      expect(after!.timeline[1]!.detail).toHaveLength(500);
      expect(after!.updated).toBe(T + 2n);
      expect(await store().incidents.get(account.id, incident.id)).toEqual(after);
    });

    it('lists newest first, by state, paged, and only to its account', async () => {
      const account = await newAccount(store());
      const other = await newAccount(store());
      const opened = [];
      for (const n of [1, 2, 3])
        opened.push((await store().incidents.open({ ...sampleIncident(account.id, null), topic: `t${n}` })).incident);
      await store().incidents.resolve(account.id, opened[1]!.id, { at: T + 1n, by: 'mailplane', detail: '' });
      const ids = (list: { id: number }[]) => list.map((i) => i.id);
      expect(ids(await store().incidents.list(account.id, { limit: 10, offset: 0 }))).toEqual(
        ids([...opened].reverse()),
      );
      expect(ids(await store().incidents.list(account.id, { limit: 10, offset: 0, state: 'open' }))).toEqual([
        opened[2]!.id,
        opened[0]!.id,
      ]);
      expect(ids(await store().incidents.list(account.id, { limit: 10, offset: 0, state: 'resolved' }))).toEqual([
        opened[1]!.id,
      ]);
      expect(ids(await store().incidents.list(account.id, { limit: 1, offset: 1 }))).toEqual([opened[1]!.id]);
      // `search` looks in the summary, case-insensitively, its `%` and `_` taken literally.
      const search = (text: string) => store().incidents.list(account.id, { limit: 10, offset: 0, search: text });
      await store().incidents.open({ ...sampleIncident(account.id, null), topic: 't4', summary: 'Gmail 50% bounces' });
      expect((await search('GMAIL 50%')).map((i) => i.summary)).toEqual(['Gmail 50% bounces']);
      expect(await search('gmail 5_%')).toEqual([]);
      expect(ids(await search('HARD-BOUNCE RATE'))).toEqual(ids([...opened].reverse()));
      // Another account: nothing to read, resolve or add to.
      expect(await store().incidents.list(other.id, { limit: 10, offset: 0 })).toEqual([]);
      expect(await store().incidents.get(other.id, opened[0]!.id)).toBeNull();
      expect(await store().incidents.findOpen(other.id, 't1')).toBeNull();
      const action = { at: T, action: 'notified', actor: 'operator' as const, detail: '' };
      expect(await store().incidents.addAction(other.id, opened[0]!.id, action)).toBeNull();
      expect(await store().incidents.resolve(other.id, opened[0]!.id, { at: T, by: 'operator', detail: '' })).toEqual({
        ok: false,
        reason: 'not-found',
      });
      expect(await store().incidents.get(account.id, opened[0]!.id)).toEqual(opened[0]);
      // The same topic in another account is another incident.
      expect((await store().incidents.open({ ...sampleIncident(other.id, null), topic: 't1' })).opened).toBe(true);
    });

    it('marks when the rate came back under the line, and finds the last resolved incident of a topic', async () => {
      const account = await newAccount(store());
      const input = sampleIncident(account.id, null);
      expect(await store().incidents.lastResolved(account.id, input.topic)).toBeNull();
      const first = (await store().incidents.open(input)).incident;
      expect(first.clearSince).toBeNull();
      expect(await store().incidents.setClearSince(account.id, first.id, T + 7n)).toBe(true);
      const marked = await store().incidents.get(account.id, first.id);
      expect(marked).toMatchObject({ clearSince: T + 7n, updated: T });
      expect(marked!.timeline).toHaveLength(1);
      expect(await store().incidents.setClearSince(account.id, first.id, null)).toBe(true);
      expect((await store().incidents.get(account.id, first.id))!.clearSince).toBeNull();
      await store().incidents.resolve(account.id, first.id, { at: T + 10n, by: 'mailplane', detail: '' });
      expect(await store().incidents.setClearSince(account.id, first.id, T + 11n)).toBe(false);
      const second = (await store().incidents.open({ ...input, started: T + 20n })).incident;
      await store().incidents.resolve(account.id, second.id, { at: T + 30n, by: 'operator', detail: 'unblocked' });
      expect(await store().incidents.lastResolved(account.id, input.topic)).toMatchObject({
        id: second.id,
        resolvedBy: 'operator',
      });
      const other = await newAccount(store());
      expect(await store().incidents.lastResolved(other.id, input.topic)).toBeNull();
      expect(await store().incidents.setClearSince(other.id, second.id, T)).toBe(false);
    });

    it('lists the open incidents of every account in pages by id', async () => {
      const first = await newAccount(store());
      const second = await newAccount(store());
      const a = (await store().incidents.open({ ...sampleIncident(first.id, null), topic: 'open-a' })).incident;
      const b = (await store().incidents.open({ ...sampleIncident(second.id, null), topic: 'open-b' })).incident;
      const c = (await store().incidents.open({ ...sampleIncident(second.id, null), topic: 'open-c' })).incident;
      await store().incidents.resolve(second.id, b.id, { at: T + 1n, by: 'operator', detail: '' });
      const open = (await store().incidents.listOpen(a.id - 1, 1000)).filter((i) => i.id <= c.id);
      expect(open.map((i) => i.id)).toEqual([a.id, c.id]);
      expect(open[1]).toMatchObject({ accountId: second.id, topic: 'open-c', state: 'open' });
      expect((await store().incidents.listOpen(a.id - 1, 1)).map((i) => i.id)).toEqual([a.id]);
    });

    it('rolls an open back with its transaction', async () => {
      const account = await newAccount(store());
      const input = sampleIncident(account.id, null);
      await expect(
        store().transaction(async (tx) => {
          await tx.incidents.open(input);
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect(await store().incidents.findOpen(account.id, input.topic)).toBeNull();
      expect((await store().incidents.open(input)).opened).toBe(true);
    });
  });
}
