/**
 * The incidents of paused sources (issue 28, automatic protection): when traffic shaping pauses an
 * IP, a TPSP or the host's own address for a destination on a blocklist or policy refusal
 * (src/shaping/throttle-replies.ts, kind `blocklist`), an incident says so under the topic
 * `pause:<shaping key>`; the operator's resume, or a delivery once the pause ran out, resolves it.
 * Traffic shaping calls these through `SourcePauseListener` (src/shaping/source-pauses.ts), wired by
 * `createMailplane`; docs/reputation.md, "Automatic protection: paused sources".
 */
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../model/time.js';
import type { SourcePause, SourcePauseEnd, SourcePauseListener } from '../shaping/source-pauses.js';
import {
  AlertParameter,
  type AlertEntityType,
  type AlertWindowHours,
  type IncidentRecord,
  type MailplaneStore,
  type NewIncident,
} from '../store/index.js';
import { alertProviderName, ALERT_WINDOW_HOURS } from './codes.js';
import { closeTopicIncident, pauseIncidentTopic } from './topics.js';
import type { IncidentChange } from './notify.js';
import { nowNs } from '../model/time.js';

/** What recording a pause works with. */
export interface SourcePauseDeps {
  readonly store: MailplaneStore;
  readonly clock: Clock;
  readonly logger: Logger;
  /**
   * Queues the notifications of an incident just opened or resolved through `store`, the transaction
   * that changes it (`notifyIncident`, src/alerts/notify.ts); none: the incident is only listed.
   */
  readonly notify?: (store: MailplaneStore, incident: IncidentRecord, change: IncidentChange) => Promise<void>;
  /** Wakes this process's job runner once the notifications have committed (`ctx.jobs.notify()`). */
  readonly wake?: () => void;
}

/** The longest part of the refusal quoted in the summary: enough to recognise it, the state keeps it whole. */
const QUOTED_REPLY_CHARS = 200;
/** The longest timeline detail the incident store takes. */
const MAX_DETAIL_CHARS = 500;

/**
 * Opens the incident of a pause, unless one is open for its key already (a repeat adds nothing and
 * notifies no one). Its fields, where the model was made for rules: `parameter` is the delivery rate,
 * measured 0 % of 1 message (the refused one) against a line of 100 %, since any such refusal pauses;
 * `windowHours` is the shortest offered window that covers the pause; a TPSP or the host's own
 * address, which are no entity of the model, are recorded as the account with the source named in the
 * summary. The timeline says `opened` then `paused`, and the notifications are queued with them.
 * Answers the incident, or `null` when one was open.
 */
export async function recordSourcePause(deps: SourcePauseDeps, pause: SourcePause): Promise<IncidentRecord | null> {
  const { clock } = deps;
  const started = nowNs(clock);
  const source = await describeSource(deps.store, pause.accountId, pause.key);
  const destination = destinationWords(pause);
  const until = new Date(pause.untilMs).toISOString();
  const incident: NewIncident = {
    accountId: pause.accountId,
    topic: pauseIncidentTopic(pause.key),
    alertId: null,
    entityType: source.entityType,
    entityId: source.entityId ?? pause.accountId,
    parameter: AlertParameter.DeliveryRate,
    provider: pause.provider,
    threshold: 100,
    windowHours: windowCovering(pause.untilMs - clock.now()),
    measuredValue: 0,
    sampleSize: 1,
    summary: `${source.words} paused for ${destination} until ${until}: ${pause.reason} (${quote(pause.reply)})`,
    started,
  };
  const detail =
    `no new message from ${source.words} to ${destination} until ${until}; its mail overflows to another ` +
    `source of its pool or waits. Resume: POST /account/shaping/state/resume {"key": "${pause.key}"}`;
  // The incident, its `paused` action and its notifications commit together, or none of them.
  const recorded = await deps.store.transaction(async (tx) => {
    const { incident: opened, opened: isNew } = await tx.incidents.open(incident);
    if (!isNew) return null;
    const paused = await tx.incidents.addAction(pause.accountId, opened.id, {
      at: started,
      action: 'paused',
      actor: 'mailplane',
      detail: detail.slice(0, MAX_DETAIL_CHARS),
    });
    await deps.notify?.(tx, paused ?? opened, 'opened');
    return paused ?? opened;
  });
  if (recorded) {
    deps.wake?.();
    deps.logger.warn('reputation: a source was paused for a destination', {
      accountId: pause.accountId,
      key: pause.key,
      summary: recorded.summary,
    });
  }
  return recorded;
}

/**
 * Resolves the open incident of a pause: by the operator with `resumed` on its timeline, or by
 * mailplane once the pause ran out and the source delivered to that destination again.
 */
export async function endSourcePause(
  deps: SourcePauseDeps,
  accountId: number,
  key: string,
  how: SourcePauseEnd,
): Promise<IncidentRecord | null> {
  const close = { accountId, topic: pauseIncidentTopic(key) };
  const notify = async (tx: MailplaneStore, incident: IncidentRecord) => {
    await deps.notify?.(tx, incident, 'resolved');
  };
  const closed =
    how === 'resumed'
      ? await closeTopicIncident(deps, {
          ...close,
          by: 'operator',
          action: 'resumed',
          detail: 'resumed through the API',
          notify,
        })
      : await closeTopicIncident(deps, {
          ...close,
          by: 'mailplane',
          detail: 'the pause ended: the source delivered to this destination again',
          notify,
        });
  if (closed) deps.wake?.();
  return closed;
}

/** The listener traffic shaping tells its pauses to (`TrafficShapingDeps.pauses`). */
export function sourcePauseIncidents(deps: SourcePauseDeps): SourcePauseListener {
  return {
    paused: async (pause) => void (await recordSourcePause(deps, pause)),
    ended: async (accountId, key, how) => void (await endSourcePause(deps, accountId, key, how)),
  };
}

/** The source of a shaping key in words, and the entity it is recorded as. */
async function describeSource(
  store: MailplaneStore,
  accountId: number,
  key: string,
): Promise<{ words: string; entityType: AlertEntityType; entityId: number | null }> {
  const [kind, idText] = (key.split('|')[0] ?? '').split(':');
  const id = Number(idText);
  if (kind === 'ip') {
    const ip = await store.ips.get(accountId, id);
    return { words: `IP ${ip?.publicIp ?? `#${id}`}`, entityType: 'ip', entityId: id };
  }
  if (kind === 'tpsp') {
    const tpsp = await store.tpsps.get(accountId, id);
    return { words: `TPSP ${tpsp ? `"${tpsp.name}" (#${id})` : `#${id}`}`, entityType: 'account', entityId: null };
  }
  return { words: "this server's own address", entityType: 'account', entityId: null };
}

/** The destination of a pause: its provider when the key is kept per provider, else the domain or MX suffix. */
function destinationWords(pause: SourcePause): string {
  const [kind, ...rest] = (pause.key.split('|')[1] ?? '').split(':');
  const value = rest.join(':');
  if (kind === 'domain') return value;
  if (kind === 'mx') return `MX hosts under ${value.replace(/^\./, '')}`;
  return alertProviderName(pause.provider);
}

/** The reply on one line, cut to what a summary quotes. */
function quote(reply: string): string {
  const line = reply.replace(/\s+/g, ' ').trim();
  return line.length > QUOTED_REPLY_CHARS ? `${line.slice(0, QUOTED_REPLY_CHARS - 1)}…` : line;
}

/** The shortest offered window at least as long as the pause. */
function windowCovering(pauseMs: number): AlertWindowHours {
  return ALERT_WINDOW_HOURS.find((hours) => hours * 3_600_000 >= pauseMs) ?? 168;
}
