/**
 * What an incident notification says, on each channel (docs/reputation.md, "Notifications"): the
 * webhook body, the Slack-compatible message and the email. Pure functions of the incident as
 * stored after its change; nothing here knows a secret, a key or a URL of mailplane's.
 */
import { stringifyJson } from '../model/json.js';
import type { AlertEntityType, IncidentRecord } from '../store/index.js';
import { alertParameterOf, alertProviderName } from './codes.js';
import { incidentToWire } from './incident-wire.js';

/** What happened to an incident: it opened, or it resolved (by itself or by an operator). */
export type IncidentChange = 'opened' | 'resolved';

/** The Standard Webhooks `webhook-id` of one incident's change: the same on every retry of it. */
export const incidentNotificationId = (incidentId: number, change: IncidentChange): string =>
  `incident_${incidentId}_${change}`;

/**
 * The webhook body of an incident's change: `type` (`incident.opened` or `incident.resolved`) and
 * `incident`, the JSON of `GET /account/incident/{id}` (ns times as exact integers).
 */
export function incidentWebhookBody(incident: IncidentRecord, change: IncidentChange): string {
  return stringifyJson({ type: `incident.${change}`, incident: incidentToWire(incident) });
}

const ENTITY_WORDS: Record<AlertEntityType, string> = {
  account: 'account',
  subAccount: 'sub-account',
  ip: 'IP',
  ipPool: 'IP pool',
  domain: 'sending domain',
};

const WINDOW_WORDS: Record<number, string> = { 1: '1 hour', 24: '24 hours', 168: '7 days' };

/** One incident's facts in words, each a short line's worth: what the channels show. */
export interface IncidentFacts {
  /** `Incident opened` / `Incident resolved`. */
  headline: string;
  /** The opener's summary on one line. */
  summary: string;
  entity: string;
  measured: string;
  threshold: string;
  window: string;
  provider: string;
  /** ISO 8601 (UTC) of when it started and, once resolved, when and by whom. */
  started: string;
  resolved: string | null;
}

/** Longest summary a notification carries (a subject line stays readable and well under 998 characters). */
const MAX_SUMMARY = 300;

const isoOfNs = (ns: bigint): string => new Date(Number(ns / 1_000_000n)).toISOString();

/** The facts of `incident` after `change`, in plain words (no markup: each channel escapes its own way). */
export function incidentFacts(incident: IncidentRecord, change: IncidentChange): IncidentFacts {
  const parameter = alertParameterOf(incident.parameter);
  const unit = parameter?.unit === 'percent' ? ' %' : ' messages';
  const label = parameter?.label ?? `parameter ${incident.parameter}`;
  const summary = incident.summary.replace(/\s+/g, ' ').trim();
  return {
    headline: change === 'opened' ? 'Incident opened' : 'Incident resolved',
    summary: summary.length > MAX_SUMMARY ? `${summary.slice(0, MAX_SUMMARY - 1)}…` : summary,
    entity: `${ENTITY_WORDS[incident.entityType] ?? incident.entityType} ${incident.entityId}`,
    measured:
      parameter?.unit === 'percent'
        ? `${label} ${incident.measuredValue} % of ${incident.sampleSize} processed messages`
        : `${label} ${incident.measuredValue} messages`,
    threshold: `${incident.threshold}${unit} (${parameter?.crosses === 'below' ? 'at or under' : 'at or over'} is a crossing)`,
    window: WINDOW_WORDS[incident.windowHours] ?? `${incident.windowHours} hours`,
    provider: alertProviderName(incident.provider),
    started: isoOfNs(incident.started),
    resolved:
      incident.resolvedAt === null ? null : `${isoOfNs(incident.resolvedAt)} by ${incident.resolvedBy ?? 'mailplane'}`,
  };
}

/** The labelled lines of the facts, in the order every channel shows them. */
function factLines(facts: IncidentFacts): Array<[string, string]> {
  return [
    ['Entity', facts.entity],
    ['Measured', facts.measured],
    ['Threshold', facts.threshold],
    ['Window', facts.window],
    ['Provider', facts.provider],
    ['Started', facts.started],
    ...(facts.resolved === null ? [] : [['Resolved', facts.resolved] as [string, string]]),
  ];
}

/** Slack's escaping of the three characters its `mrkdwn` text gives meaning to. */
const slackEscape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The Slack incoming-webhook message of an incident's change: a `text` fallback of one line, and a
 * section block of `plain_text` (never parsed for links or mentions) with the summary and the facts.
 */
export function slackIncidentMessage(incident: IncidentRecord, change: IncidentChange): string {
  const facts = incidentFacts(incident, change);
  const plain = (text: string) => ({ type: 'plain_text', text, emoji: false });
  return JSON.stringify({
    text: slackEscape(`[mailplane] ${facts.headline}: ${facts.summary}`),
    blocks: [
      { type: 'section', text: plain(`${facts.headline}: ${facts.summary}`) },
      { type: 'section', fields: factLines(facts).map(([name, value]) => plain(`${name}: ${value}`)) },
    ],
  });
}

/** An incident notification email's parts, ready for a send request (no template syntax left in them). */
export interface IncidentEmail {
  subject: string;
  text: string;
  html: string;
}

/**
 * Sends render their parts as Handlebars templates: a `{{` in a summary must stay text. A space
 * between two braces keeps them apart (the plain parts); the HTML part writes every brace as an entity.
 */
const withoutMustaches = (text: string): string => text.replace(/\{(?=\{)/g, '{ ');

const htmlEscape = (text: string): string =>
  text.replace(
    /[&<>"'{}]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '{': '&#123;', '}': '&#125;' })[c]!,
  );

/** The notification email of an incident's change: a one-line subject, a plain-text and a small HTML body. */
export function incidentEmail(incident: IncidentRecord, change: IncidentChange): IncidentEmail {
  const facts = incidentFacts(incident, change);
  const lines = factLines(facts);
  const text = [
    `${facts.headline}: ${facts.summary}`,
    '',
    ...lines.map(([name, value]) => `${name}: ${value}`),
    '',
    `Incident ${incident.id}: GET /account/incident/${incident.id}`,
    '',
  ].join('\n');
  const html = [
    '<!doctype html><html><body>',
    `<p><strong>${htmlEscape(facts.headline)}</strong>: ${htmlEscape(facts.summary)}</p>`,
    '<table>',
    ...lines.map(([name, value]) => `<tr><th align="left">${htmlEscape(name)}</th><td>${htmlEscape(value)}</td></tr>`),
    '</table>',
    `<p>Incident ${incident.id}: GET /account/incident/${incident.id}</p>`,
    '</body></html>',
  ].join('\n');
  return {
    subject: withoutMustaches(`[mailplane] ${facts.headline}: ${facts.summary}`),
    text: withoutMustaches(text),
    html,
  };
}
