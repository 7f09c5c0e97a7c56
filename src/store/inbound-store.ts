import type { ListQuery } from '../model/paging.js';
import type { EpochNs } from '../model/time.js';
import type { ActivityCursor } from './message-store.js';
import type { InboundPostLog } from './inbound-post-log.js';
import type { RetentionScope } from './message-store.js';
import type { Outcome } from './outcome.js';

/**
 * Receiving mail (docs/inbound.md): which sending domains receive, the routes that say what
 * becomes of a recipient's mail, and the messages received.
 */

/** A sending domain that receives mail: its MX record and whether the MX check found it. */
export interface InboundDomainRecord {
  domainId: number;
  accountId: number;
  subAccountId: number;
  /** The domain's normalised name (as `DomainRecord.name`). */
  name: string;
  enabledAt: EpochNs;
  /** Whether the last check found the MX record pointing at the receiving host. */
  mxVerified: boolean;
  /** Why the last MX check failed; empty when verified or not yet checked. */
  mxFailureReason: string;
  /** When the MX record was last checked, `0n` when never. */
  mxCheckedAt: EpochNs;
}

/**
 * How a route's `pattern` matches a recipient: `exact` (`support@acme.test`), `prefix`
 * (`reply+*@acme.test`: the local part starts with `reply+`), or `catchAll` (`*@acme.test`).
 */
export type InboundPatternKind = 'exact' | 'prefix' | 'catchAll';

/** What a route does with the mail it matches. */
export type InboundAction = 'webhook' | 'forward' | 'store' | 'refuse';

/** A route of a sub-account: a recipient pattern on one of its receiving domains and an action. */
export interface InboundRouteRecord {
  id: number;
  accountId: number;
  subAccountId: number;
  /** As given, normalised: lower-case, the domain as its `InboundDomainRecord.name`. */
  pattern: string;
  kind: InboundPatternKind;
  /** The pattern's domain. */
  domain: string;
  /** The local part (`exact`), the prefix before `*` (`prefix`), or `''` (`catchAll`). */
  localPart: string;
  action: InboundAction;
  /** `webhook`: the URL posted to (checked as webhook targets are); `null` otherwise. */
  url: string | null;
  /** `webhook`: the signing secret, encrypted at rest (`SecretBox.encrypt`); `null` otherwise. */
  secretSealed: string | null;
  /** `forward`: the address mail is forwarded to; `null` otherwise. */
  forwardTo: string | null;
  created: EpochNs;
  updated: EpochNs;
}

/** What {@link InboundStore.createRoute} needs. */
export type NewInboundRoute = Omit<InboundRouteRecord, 'id' | 'updated'>;

/** The fields {@link InboundStore.updateRoute} changes; absent ones keep their value. */
export type InboundRoutePatch = Partial<
  Pick<
    InboundRouteRecord,
    'pattern' | 'kind' | 'domain' | 'localPart' | 'action' | 'url' | 'secretSealed' | 'forwardTo'
  >
> & { updated: EpochNs };

/** What became of a received message. */
export type InboundStatus = 'pending' | 'posted' | 'forwarded' | 'stored' | 'failed';

/** Authentication results of a received message (mailauth's verdicts, lower-case words). */
export interface InboundAuthResults {
  spf: string;
  dkim: string;
  dmarc: string;
  arc: string;
}

/** A received message. */
export interface InboundMessageRecord {
  /** A UUID. */
  id: string;
  accountId: number;
  subAccountId: number;
  /** The route that took it; `null` once that route is deleted. */
  routeId: number | null;
  receivedAt: EpochNs;
  /** The envelope: `MAIL FROM` (may be empty for a bounce) and the one `RCPT TO` this record is for. */
  mailFrom: string;
  rcptTo: string;
  /** The `From` header's address and the subject, for lists and search (bounded, as received). */
  from: string;
  subject: string;
  /** The `Message-ID` header, without angle brackets; `''` when none. */
  messageIdHeader: string;
  /** The sent message this one answers (`In-Reply-To` / `References`), if mailplane sent it. */
  inReplyToMessageId: string | null;
  /** Size of the whole message in bytes. */
  size: number;
  /** The raw message when it fits the configured size; `null` when larger (or removed by retention). */
  raw: Buffer | null;
  auth: InboundAuthResults;
  status: InboundStatus;
  /** Why it failed, or what the action did, in plain words; `''` when nothing to say. */
  detail: string;
  updated: EpochNs;
}

/** What {@link InboundStore.listMessages} reads: a page of one sub-account's, newest first. */
export interface InboundMessageQuery extends ListQuery {
  /** Only the messages of this route. */
  routeId?: number;
}

/**
 * Storage of receiving, scoped by sub-account: another sub-account's domain, route or message is
 * indistinguishable from a missing one.
 *
 * - `enableDomain` MUST answer `not-found` unless `domainId` is a domain of `subAccountId`; enabling
 *   an enabled domain keeps its `enabledAt` and MX state. `receivingDomain` finds an enabled domain
 *   by name (normalised, case-insensitive) across every account: the listener's RCPT check.
 * - `createRoute` / `updateRoute` MUST answer `duplicate-pattern` when the sub-account has another
 *   route with the same `pattern`, and `domain-not-receiving` unless `domain` is a receiving
 *   domain of the route's sub-account. `listRoutes` orders by id; `search` matches the pattern
 *   case-insensitively and literally; `countRoutes` counts what it would list without paging.
 * - `routesForDomain` answers every route on `domain` (any sub-account: a domain belongs to one), for
 *   the listener to pick the match in the documented order.
 * - `disableDomain` keeps the domain's routes (they match again once it is enabled again).
 * - `insertMessage` stores a message; `setMessageStatus` changes its status and detail (and
 *   `updated`); `listMessages` orders newest first (by `receivedAt`, then id).
 * - `deleteMessagesBefore` removes at most `limit` messages received before `before`, of every
 *   sub-account or only those `scope` selects (a sub-account's own retention), answering how many;
 *   their post log goes with them.
 * - The lists of the API and the activity: {@link InboundListQueries}.
 * - The post log of webhook routes: {@link InboundPostLog}.
 */
export interface InboundStore extends InboundListQueries, InboundPostLog {
  enableDomain(subAccountId: number, domainId: number, at: EpochNs): Promise<Outcome<InboundDomainRecord, 'not-found'>>;
  disableDomain(subAccountId: number, domainId: number): Promise<boolean>;
  getDomain(subAccountId: number, domainId: number): Promise<InboundDomainRecord | null>;
  listDomains(subAccountId: number): Promise<InboundDomainRecord[]>;
  receivingDomain(name: string): Promise<InboundDomainRecord | null>;
  setMxCheck(domainId: number, check: { verified: boolean; reason: string; at: EpochNs }): Promise<void>;

  createRoute(
    input: NewInboundRoute,
  ): Promise<Outcome<InboundRouteRecord, 'duplicate-pattern' | 'domain-not-receiving'>>;
  getRoute(subAccountId: number, id: number): Promise<InboundRouteRecord | null>;
  listRoutes(subAccountId: number, query: ListQuery): Promise<InboundRouteRecord[]>;
  countRoutes(subAccountId: number, search?: string): Promise<number>;
  updateRoute(
    subAccountId: number,
    id: number,
    patch: InboundRoutePatch,
  ): Promise<Outcome<InboundRouteRecord, 'not-found' | 'duplicate-pattern' | 'domain-not-receiving'>>;
  deleteRoute(subAccountId: number, id: number): Promise<InboundRouteRecord | null>;
  routesForDomain(domain: string): Promise<InboundRouteRecord[]>;

  insertMessage(message: InboundMessageRecord): Promise<void>;
  getMessage(subAccountId: number, id: string): Promise<InboundMessageRecord | null>;
  listMessages(subAccountId: number, query: InboundMessageQuery): Promise<InboundMessageRecord[]>;
  setMessageStatus(id: string, status: InboundStatus, detail: string, updated: EpochNs): Promise<void>;
  deleteMessagesBefore(before: EpochNs, limit: number, scope?: RetentionScope): Promise<number>;
}

/**
 * The lists of received messages (docs/inbound.md, "Received messages"; docs/activity.md): an
 * account's or one sub-account's, filtered and paged, and the replies threaded to a sent message.
 */

/**
 * What {@link InboundListQueries.listMessageSummaries} selects. Every filter is optional but the
 * account; addresses are compared exactly and case-insensitively (the caller lower-cases them).
 */
export interface InboundMessageFilter {
  accountId: number;
  subAccountId?: number;
  /** One message, by its id (lower-case). */
  id?: string;
  routeId?: number;
  status?: InboundStatus;
  /** The `From` header's address, lower-cased. */
  sender?: string;
  /** The envelope recipient (`RCPT TO`), lower-cased. */
  recipient?: string;
  /** Case-insensitive, literal substring of the sender, the recipient or the subject. */
  search?: string;
  /** The sent message the received ones answer (`inReplyToMessageId`). */
  inReplyToMessageId?: string;
  /** Inclusive lower bound on `receivedAt`. */
  from?: EpochNs;
  /** Exclusive upper bound on `receivedAt`. */
  to?: EpochNs;
}

/** One page: after a cursor (`receivedAt`, `id`), or after `offset` rows (the sub-account list's paging). */
export interface InboundMessagePage {
  limit: number;
  after?: ActivityCursor;
  offset?: number;
}

/**
 * A received message as the lists show it: the record without its raw bytes (a list of 100
 * messages must not read 100 MB), whether they are kept, and its route's pattern (`null` once the
 * route is deleted).
 */
export interface InboundMessageSummary extends Omit<InboundMessageRecord, 'raw'> {
  rawKept: boolean;
  routePattern: string | null;
}

/**
 * The list queries of the inbound store.
 *
 * - `listMessageSummaries` answers the messages of `filter`, newest first by (`receivedAt`, `id`),
 *   strictly after `page.after` when given, skipping `page.offset` when given, at most `page.limit`.
 *   Another account's message never matches.
 */
export interface InboundListQueries {
  listMessageSummaries(filter: InboundMessageFilter, page: InboundMessagePage): Promise<InboundMessageSummary[]>;
}
