/**
 * The Alerts and Incidents pages' logic without a browser (src/dashboard/ui/reputation-format.ts):
 * its tables equal the API's own, codes in words, a rule between the form and the API, the API's
 * refusal by field, the shaping key of a pause incident, and the destinations an IP is paused for.
 */
import { describe, expect, it } from 'vitest';
import {
  ALERT_ENTITY_TYPES as API_ENTITY_TYPES,
  ALERT_PARAMETERS as API_PARAMETERS,
  ALERT_WINDOW_HOURS as API_WINDOWS,
  parseAlertProvider,
} from '../../src/alerts/codes.js';
import {
  ALERT_ENTITY_TYPES,
  ALERT_PARAMETERS,
  ALERT_WINDOW_HOURS,
  alertBody,
  destinationText,
  draftOfAlert,
  fieldProblems,
  lineText,
  pausesOfIp,
  pauseKeyOf,
  PROVIDER_CHOICES,
  providerText,
  valueText,
  windowText,
  type AlertRule,
} from '../../src/dashboard/ui/reputation-format.js';

const RULE: AlertRule = {
  id: 3,
  name: 'Shop bounces',
  active: false,
  entityType: 'subAccount',
  entityValue: '12',
  parameter: 0,
  threshold: '2.5',
  provider: '0',
  processedCountThreshold: 200,
  windowHours: 1,
  emails: ['ops@example.com', 'oncall@example.com'],
  slackUrl: 'https://hooks.slack.com/services/T/B/X',
};

describe('the Alerts and Incidents pages logic', () => {
  it("offers exactly the API's parameters, entity types, windows and providers", () => {
    expect(ALERT_PARAMETERS).toEqual(API_PARAMETERS);
    expect(ALERT_ENTITY_TYPES).toEqual(API_ENTITY_TYPES);
    expect(ALERT_WINDOW_HOURS).toEqual(API_WINDOWS);
    // Every provider choice is one the API reads, and the API reads no other.
    expect(PROVIDER_CHOICES.map(([value]) => parseAlertProvider(value) !== undefined)).not.toContain(false);
    expect(PROVIDER_CHOICES).toHaveLength(13);
  });

  it('says codes in words, with units and the side of the line that fires', () => {
    expect(lineText(0, '5')).toBe('at or above 5 %');
    expect(lineText(4, 95)).toBe('under 95 %');
    expect(valueText(7, '12000')).toBe(`${(12000).toLocaleString()} messages`);
    expect(valueText(7, 1)).toBe('1 message');
    expect(valueText(2, 0.125)).toBe(`${(0.125).toLocaleString()} %`);
    expect([1, 24, 168].map(windowText)).toEqual(['the last hour', 'the last 24 hours', 'the last 7 days']);
    expect([providerText('all'), providerText('0'), providerText('11')]).toEqual([
      'All providers',
      'Gmail',
      'Any other provider',
    ]);
  });

  it('round-trips a rule through the form, and sends what is typed for the API to judge', () => {
    expect(alertBody(draftOfAlert(RULE))).toEqual({
      name: 'Shop bounces',
      active: false,
      entityType: 'subAccount',
      entityValue: 12,
      parameter: 0,
      threshold: '2.5',
      provider: '0',
      processedCountThreshold: 200,
      windowHours: 1,
      emails: ['ops@example.com', 'oncall@example.com'],
      slackUrl: 'https://hooks.slack.com/services/T/B/X',
    });
    const typed = { ...draftOfAlert(), name: ' Volume ', parameter: '7', threshold: ' 150 ' };
    typed.emails = ' a@example.com,, b@example.com ,';
    typed.processedCountThreshold = 'lots';
    expect(alertBody(typed)).toEqual({
      name: 'Volume',
      active: true,
      entityType: 'account',
      parameter: 7,
      threshold: '150',
      provider: 'all',
      processedCountThreshold: 'lots',
      windowHours: 24,
      emails: ['a@example.com', 'b@example.com'],
      slackUrl: null,
    });
    // A sub-account not chosen yet is left out: the API says which id to give.
    expect(alertBody({ ...typed, entityType: 'ip', entityValue: '' })).not.toHaveProperty('entityValue');
  });

  it("reads the API's refusal by field, the first problem of each", () => {
    expect(
      fieldProblems([
        { path: 'threshold', message: 'a rate must be 0-100 (%)' },
        { path: 'emails[1]', message: 'is not an address' },
        { path: 'emails[2]', message: 'is not an address either' },
      ]),
    ).toEqual({ threshold: 'a rate must be 0-100 (%)', emails: 'is not an address' });
  });

  it('finds the shaping key of a pause incident, and the destinations an IP is suspended for', () => {
    expect(pauseKeyOf('pause:ip:7|provider:gmail')).toBe('ip:7|provider:gmail');
    expect([pauseKeyOf('alert:3'), pauseKeyOf('pause:'), pauseKeyOf(undefined)]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(['provider:microsoft', 'domain:example.com', 'mx:outlook.com', '*'].map(destinationText)).toEqual([
      'Microsoft',
      'example.com',
      'mail exchangers of outlook.com',
      'every destination',
    ]);
    const now = 1_000_000;
    const states = [
      { source: 'ip:7', destination: 'provider:gmail', suspendedUntil: now + 1 },
      { source: 'ip:7', destination: 'provider:yahoo', suspendedUntil: now - 1 },
      { source: 'ip:7', destination: 'provider:aol', suspendedUntil: null },
      { source: 'ip:8', destination: 'provider:zoho', suspendedUntil: now + 1 },
      { source: 'tpsp:7', destination: 'provider:qq', suspendedUntil: now + 1 },
    ];
    expect(pausesOfIp(states, 7, now)).toEqual(['Gmail']);
  });
});
