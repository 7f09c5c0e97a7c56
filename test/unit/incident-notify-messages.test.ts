/**
 * What incident notifications say (src/alerts/notify-messages.ts): the webhook body, the Slack
 * message and the email, escaped for each channel.
 */
import { describe, expect, it } from 'vitest';
import {
  incidentEmail,
  incidentNotificationId,
  incidentWebhookBody,
  slackIncidentMessage,
} from '../../src/alerts/notify-messages.js';
import type { IncidentRecord } from '../../src/store/index.js';

const STARTED = 1_781_000_000_000_000_000n;

const incident = (overrides: Partial<IncidentRecord> = {}): IncidentRecord => ({
  id: 42,
  accountId: 1,
  topic: 'alert:7',
  alertId: 7,
  entityType: 'subAccount',
  entityId: 3,
  parameter: 0,
  provider: null,
  threshold: 10,
  windowHours: 24,
  measuredValue: 20.5,
  sampleSize: 1000,
  summary: 'hard-bounce rate 20.5 % of 1000 crossed 10 % over 24 hours',
  state: 'open',
  started: STARTED,
  resolvedAt: null,
  resolvedBy: null,
  updated: STARTED,
  clearSince: null,
  timeline: [{ at: STARTED, action: 'opened', actor: 'mailplane', detail: 'crossed' }],
  ...overrides,
});

describe('incident notification messages', () => {
  it('names each change of each incident once: the webhook-id of every retry', () => {
    expect(incidentNotificationId(42, 'opened')).toBe('incident_42_opened');
    expect(incidentNotificationId(42, 'resolved')).toBe('incident_42_resolved');
  });

  it('posts the incident as the API shows it, ns times as exact integers', () => {
    const body = incidentWebhookBody(incident(), 'opened');
    expect(body).toContain(`"created":${STARTED}`);
    const json = JSON.parse(body);
    expect(json.type).toBe('incident.opened');
    expect(json.incident).toMatchObject({ id: 42, state: 'open', alertId: 7, entityType: 'subAccount' });
    expect(JSON.parse(incidentWebhookBody(incident({ state: 'resolved' }), 'resolved')).type).toBe('incident.resolved');
  });

  it('gives Slack a one-line fallback and plain-text blocks with the facts, markup escaped', () => {
    const message = JSON.parse(
      slackIncidentMessage(
        incident({ summary: 'rate <b>high</b> & rising\nsee <https://evil.example|here>' }),
        'opened',
      ),
    );
    expect(message.text).toBe(
      '[mailplane] Incident opened: rate &lt;b&gt;high&lt;/b&gt; &amp; rising see &lt;https://evil.example|here&gt;',
    );
    expect(message.blocks[0]).toEqual({
      type: 'section',
      text: {
        type: 'plain_text',
        text: 'Incident opened: rate <b>high</b> & rising see <https://evil.example|here>',
        emoji: false,
      },
    });
    const fields = message.blocks[1].fields.map((field: { type: string; text: string }) => {
      expect(field.type).toBe('plain_text');
      return field.text;
    });
    expect(fields).toEqual([
      'Entity: sub-account 3',
      'Measured: hard-bounce rate 20.5 % of 1000 processed messages',
      'Threshold: 10 % (at or over is a crossing)',
      'Window: 24 hours',
      'Provider: all providers',
      'Started: 2026-06-09T10:13:20.000Z',
    ]);
  });

  it('says when and by whom a resolved incident was closed', () => {
    const resolvedAt = STARTED + 3_600_000_000_000n;
    const message = JSON.parse(
      slackIncidentMessage(incident({ state: 'resolved', resolvedAt, resolvedBy: 'operator' }), 'resolved'),
    );
    expect(message.text.startsWith('[mailplane] Incident resolved: ')).toBe(true);
    expect(message.blocks[1].fields.at(-1).text).toBe('Resolved: 2026-06-09T11:13:20.000Z by operator');
  });

  it('writes the email with the summary in the subject, the facts in plain text and escaped HTML', () => {
    const email = incidentEmail(
      incident({ summary: 'volume of <script>alert(1)</script> "x" & {{unsubscribe}}', parameter: 7 }),
      'opened',
    );
    expect(email.subject).toBe(
      '[mailplane] Incident opened: volume of <script>alert(1)</script> "x" & { {unsubscribe}}',
    );
    expect(email.text).toContain('Measured: volume 20.5 messages\n');
    expect(email.text).toContain('Incident 42: GET /account/incident/42');
    expect(email.text).not.toContain('{{');
    expect(email.html).toContain(
      'volume of &lt;script&gt;alert(1)&lt;/script&gt; &quot;x&quot; &amp; &#123;&#123;unsubscribe&#125;&#125;',
    );
    expect(email.html).not.toMatch(/<script|\{/);
  });

  it('keeps the subject on one line and of a readable length', () => {
    const email = incidentEmail(incident({ summary: `line one\r\nline two ${'x'.repeat(1000)}` }), 'opened');
    expect(email.subject).not.toMatch(/[\r\n]/);
    expect(email.subject.length).toBeLessThan(350);
    expect(email.subject.endsWith('…')).toBe(true);
  });
});
