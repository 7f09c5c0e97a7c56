/**
 * The automatic protection panel's logic without a browser (src/dashboard/ui/protection-format.ts):
 * a line in words, the bodies its forms send (held to the API's own schemas, so the two cannot drift
 * apart), what was typed sent as typed, and a refusal's paths matched to a field.
 */
import { describe, expect, it } from 'vitest';
import { accountProtectionBody, DEFAULT_PROTECTION, subAccountProtectionBody } from '../../src/alerts/protection.js';
import {
  draftOfOverride,
  draftOfProtection,
  namesField,
  overrideBody,
  protectionBody,
  protectionLineText,
  protectionNotifyText,
} from '../../src/dashboard/ui/protection-format.js';

describe("the dashboard's automatic protection panel", () => {
  it('says a line and who is notified in words', () => {
    expect(protectionLineText({ block: 10, warn: 5, minProcessed: 1000 })).toBe(
      'blocks at 10 %, warns at 5 %, judged from 1,000 processed',
    );
    expect(protectionLineText({ block: 0, warn: 0, minProcessed: 100 })).toBe(
      'never blocks, never warns, judged from 100 processed',
    );
    expect(protectionNotifyText({ emails: [], slackUrl: null })).toMatch(/^no email or Slack/);
    expect(protectionNotifyText({ emails: ['a@example.com'], slackUrl: 'https://hooks.example.com/x' })).toBe(
      'a@example.com, Slack (https://hooks.example.com/x)',
    );
  });

  it("sends the account's settings as the API reads them, what was typed kept as typed", () => {
    const draft = draftOfProtection(DEFAULT_PROTECTION);
    expect(draft.hardBounceRate).toEqual({ block: '10', warn: '5', minProcessed: '100' });
    const body = protectionBody({
      ...draft,
      hardBounceRate: { block: ' 15 ', warn: '2.5', minProcessed: '200' },
      emails: ' ops@example.com, , oncall@example.com ',
      slackUrl: '  ',
    });
    expect(body).toMatchObject({
      hardBounceRate: { block: 15, warn: 2.5, minProcessed: 200 },
      emails: ['ops@example.com', 'oncall@example.com'],
      slackUrl: null,
    });
    expect(accountProtectionBody.safeParse(body).success).toBe(true);
    expect(protectionBody({ ...draft, hardBounceRate: { ...draft.hardBounceRate, warn: 'ten' } })).toMatchObject({
      hardBounceRate: { warn: 'ten' },
    });
  });

  it("sends only what a sub-account sets of its own; none is the API's `{}`", () => {
    const none = draftOfOverride({}, DEFAULT_PROTECTION);
    expect(none.enabled).toBe('account');
    expect(overrideBody(none)).toEqual({});
    const line = { block: 25, warn: 12.5, minProcessed: 100 };
    const own = draftOfOverride({ enabled: false, spamComplaintRate: line }, DEFAULT_PROTECTION);
    expect(own.own).toEqual({ hardBounceRate: false, spamComplaintRate: true });
    // A line it does not set starts from the account's, ready to be made its own.
    expect(own.hardBounceRate).toEqual({ block: '10', warn: '5', minProcessed: '100' });
    const body = overrideBody(own);
    expect(body).toEqual({ enabled: false, spamComplaintRate: line });
    expect(subAccountProtectionBody.safeParse(body).success).toBe(true);
  });

  it("matches a refusal's paths to a field and its parts", () => {
    expect(namesField(['hardBounceRate.warn'], 'hardBounceRate.warn')).toBe(true);
    expect(namesField(['hardBounceRate.warn'], 'hardBounceRate.block')).toBe(false);
    expect(namesField(['emails.1'], 'emails')).toBe(true);
    expect(namesField(['emailsX'], 'emails')).toBe(false);
  });
});
