/**
 * Incidents through the API (`/account/incident`, docs/reputation.md) on every database. The
 * evaluation that opens them is another part: here they are opened through the store's `open`,
 * as it will, and read, listed, resolved by the operator and closed with their rule's deletion.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { contextOf } from '../../src/instance-context.js';
import { useTestApi } from '../support/api.js';
import { expectAuthBattery, expectError } from '../support/bad-input.js';
import { storeKinds } from '../support/databases.js';

const STARTED = 1_781_000_000_000_000_000n;

describe.each(storeKinds)('incidents API on %s', (kind) => {
  const api = useTestApi(kind);
  let key: string;
  let accountId: number;
  let subAccountId: number;
  beforeEach(async () => {
    key = api.accountKey;
    const sub = await api.createSubAccount('mailer');
    subAccountId = sub.id;
    accountId = sub.accountId;
  });

  const createRule = async () =>
    (
      await api.call('POST', '/account/alert', {
        account: key,
        body: {
          name: 'Bounces',
          entityType: 'subAccount',
          entityValue: subAccountId,
          parameter: 0,
          threshold: 10,
          windowHours: 1,
        },
      })
    ).body;

  /** Opens an incident as the evaluation will: through the store, under the rule's topic. */
  const openIncident = async (alertId: number | null, topic = `alert:${alertId}`) =>
    contextOf(api.mailplane).store.incidents.open({
      accountId,
      topic,
      alertId,
      entityType: 'subAccount',
      entityId: subAccountId,
      parameter: 0,
      provider: 0,
      threshold: 10,
      windowHours: 1,
      measuredValue: 20.5,
      sampleSize: 1000,
      summary: 'hard-bounce rate 20.5 % of 1000 crossed 10 % over 1 hour',
      started: STARTED,
    });

  it('reads an incident in the legacy shape with what was measured and its timeline', async () => {
    const alert = await createRule();
    const { incident } = await openIncident(alert.id);
    const got = await api.call('GET', `/account/incident/${incident.id}`, { account: key });
    expect(got.status, got.text).toBe(200);
    expect(got.body).toEqual({
      id: incident.id,
      status: 0,
      state: 'open',
      summary: 'hard-bounce rate 20.5 % of 1000 crossed 10 % over 1 hour',
      topic: `alert:${alert.id}`,
      created: Number(STARTED),
      updated: Number(STARTED),
      closed: null,
      resolvedBy: null,
      alertId: alert.id,
      entityType: 'subAccount',
      entityValue: String(subAccountId),
      parameter: 0,
      provider: '0',
      threshold: '10',
      windowHours: 1,
      measuredValue: 20.5,
      sampleSize: 1000,
      timeline: [
        {
          at: Number(STARTED),
          action: 'opened',
          actor: 'mailplane',
          detail: 'hard-bounce rate 20.5 % of 1000 crossed 10 % over 1 hour',
        },
      ],
    });
    // Nanoseconds keep every digit on the wire.
    expect(got.text).toContain(`"created":${STARTED}`);
    expectError(await api.call('GET', '/account/incident/999999', { account: key }), 406, 'INCIDENT_NOT_FOUND');
    expectError(await api.call('GET', '/account/incident/abc', { account: key }), 406, 'INCIDENT_NOT_FOUND');
  });

  it('lists newest first, filters by status, pages', async () => {
    const first = (await openIncident(null, 'protection:a')).incident;
    const second = (await openIncident(null, 'protection:b')).incident;
    const third = (await openIncident(null, 'protection:c')).incident;
    await api.call('POST', `/account/incident/${second.id}/resolve`, { account: key });
    const ids = async (query: Record<string, string | number>) =>
      (await api.call('GET', '/account/incident', { account: key, query })).body.map((i: { id: number }) => i.id);
    expect(await ids({})).toEqual([third.id, second.id, first.id]);
    expect(await ids({ status: 0 })).toEqual([third.id, first.id]);
    expect(await ids({ status: 1 })).toEqual([second.id]);
    expect(await ids({ limit: 1, offset: 1 })).toEqual([second.id]);
    expectError(await api.call('GET', '/account/incident', { account: key, query: { status: 2 } }), 422);
  });

  it("resolves once on the operator's call, with the note on the timeline", async () => {
    const { incident } = await openIncident(null, 'protection:sub');
    const path = `/account/incident/${incident.id}/resolve`;
    const resolved = await api.call('POST', path, { account: key, body: { note: 'list cleaned, sending again' } });
    expect(resolved.status, resolved.text).toBe(200);
    expect(resolved.body).toMatchObject({ status: 1, state: 'resolved', resolvedBy: 'operator' });
    expect(resolved.body.closed).toBeGreaterThan(0);
    expect(resolved.body.timeline.map((a: { action: string; actor: string }) => [a.action, a.actor])).toEqual([
      ['opened', 'mailplane'],
      ['resolved', 'operator'],
    ]);
    expect(resolved.body.timeline[1].detail).toBe('list cleaned, sending again');
    const again = await api.call('POST', path, { account: key, body: { note: 'again' } });
    expectError(again, 403, 'INCIDENT_ALREADY_RESOLVED');
    expect((await api.call('GET', `/account/incident/${incident.id}`, { account: key })).body).toEqual(resolved.body);
    // The topic is free again: a new crossing opens a new incident.
    expect((await openIncident(null, 'protection:sub')).opened).toBe(true);
    expectError(
      await api.call('POST', '/account/incident/999999/resolve', { account: key }),
      406,
      'INCIDENT_NOT_FOUND',
    );
    expectError(await api.call('POST', path, { account: key, body: { note: 'x'.repeat(501) } }), 422);
  });

  it("resolves a rule's open incident when the rule is deleted, and keeps the incident readable", async () => {
    const alert = await createRule();
    const { incident } = await openIncident(alert.id);
    expect((await api.call('DELETE', `/account/alert/${alert.id}`, { account: key })).status).toBe(200);
    const after = (await api.call('GET', `/account/incident/${incident.id}`, { account: key })).body;
    expect(after).toMatchObject({ state: 'resolved', resolvedBy: 'alert-deleted', alertId: null, threshold: '10' });
  });

  it("lets no other account read or resolve the account's incidents", async () => {
    const { incident } = await openIncident(null, 'protection:x');
    const other = (await api.mailplane.createAccount({ name: 'intruder' })).apiKey;
    expectError(
      await api.call('GET', `/account/incident/${incident.id}`, { account: other }),
      406,
      'INCIDENT_NOT_FOUND',
    );
    expectError(
      await api.call('POST', `/account/incident/${incident.id}/resolve`, { account: other }),
      406,
      'INCIDENT_NOT_FOUND',
    );
    expect((await api.call('GET', '/account/incident', { account: other })).body).toEqual([]);
    expect((await api.call('GET', `/account/incident/${incident.id}`, { account: key })).body.state).toBe('open');
  });

  it('takes the account key only', async () => {
    const { incident } = await openIncident(null, 'protection:keys');
    const sub = await api.createSubAccount('keys');
    await expectAuthBattery(api, 'GET', '/account/incident', 'account', sub.apiKey);
    await expectAuthBattery(api, 'GET', `/account/incident/${incident.id}`, 'account', sub.apiKey);
    await expectAuthBattery(api, 'POST', `/account/incident/${incident.id}/resolve`, 'account', sub.apiKey);
    expect((await api.call('GET', `/account/incident/${incident.id}`, { account: key })).body.state).toBe('open');
  });
});
