import type { z } from 'zod';
import type { AuthKind, Principal } from './auth.js';
import type { StreamedBody } from './streamed-body.js';
import type { StreamedBodyRule } from './streamed-request.js';
import type { RawJson } from './json.js';
import type { HttpRequest } from './types.js';
import type { SecretBox } from '../crypto/secrets.js';
import type { DeliveryRouting } from '../delivery/route.js';
import type { DnsResolver } from '../dns/resolver.js';
import type { DomainVerifier } from '../domain/verification.js';
import type { InboundRecipientDirectory } from '../domain/recipient-directory.js';
import type { MailplaneJobs } from '../jobs/kinds.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Logger } from '../logging/logger.js';
import type { MailplaneConfig } from '../mailplane-config.js';
import type { MailplaneMetrics } from '../metrics/metrics.js';
import type { IdGenerator } from '../model/ids.js';
import type { Clock } from '../model/time.js';
import type { GroupCommit } from '../store/group-commit.js';
import type { MailplaneStore } from '../store/index.js';
import type { TemplateCompiler } from '../template/renderer.js';
import type { WarmupService } from '../warmup/service.js';
import type { WebhookOutbox } from '../lifecycle/webhook-outbox.js';

/**
 * What the API's handlers use of the instance (`RouteInput.ctx`): its collaborators but the transports,
 * which only delivery uses. `createMailplane` hands the router its own.
 */
export interface ApiDeps {
  readonly config: MailplaneConfig;
  readonly store: MailplaneStore;
  readonly secrets: SecretBox;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** This instance's Prometheus metrics (its own registry), exposed by `mailplane.handleMetrics`. */
  readonly metrics: MailplaneMetrics;
  /** Enqueues durable jobs and wakes this process's runner (call `notify()` after a commit). */
  readonly jobs: JobQueue<MailplaneJobs>;
  /** The DNS resolver of this instance (verification, MX lookups), with its cache. */
  readonly resolver: DnsResolver;
  /** Commits writes that must be durable before a response, several per transaction under load. */
  readonly writes: GroupCommit;
  /** Queues the webhook posts of the events a transaction records, in that transaction. */
  readonly webhookOutbox: WebhookOutbox;
  /** The receiving domains and their routes as `RCPT TO` reads them, remembered a few seconds; changes call `changed()`. */
  readonly inboundRecipients: InboundRecipientDirectory;
  /*
   * The runtime services: each owns its in-memory state, is built once by `createMailplane` and is
   * closed by `mailplane.close()`. Nothing else keeps state per instance.
   */
  /** Routing at delivery: routing tables, TPSP transports, the choice of each attempt's route. */
  readonly routing: DeliveryRouting;
  /** IP warmup: evaluation, the API's views, and the sends reserved at delivery. */
  readonly warmup: WarmupService;
  /** DNS checks of sending domains, one at a time per domain. */
  readonly domainVerifier: DomainVerifier;
  /** Compiles message templates (accept, stored templates, delivery), with the instance's cache of compiled ones. */
  readonly templateCompiler: TemplateCompiler;
}

/** What a route handler receives: validated input and the authenticated caller. */
export interface RouteInput<A extends AuthKind, Q, B> {
  /** Raw path parameters (ids are parsed by the handler: a bad id is a 406, not a 422). */
  params: Record<string, string>;
  query: Q;
  body: B;
  principal: Principal<A>;
  ctx: ApiDeps;
  request: HttpRequest;
}

/** What a route handler returns; `status` defaults to the route's `successStatus`. */
export interface RouteResult<R = unknown> {
  status?: number;
  body: R;
  /** Extra response headers (lower-case names), e.g. `idempotent-replayed`. */
  headers?: Record<string, string>;
}

/** A request header a route reads besides its key; the OpenAPI document publishes it as a header parameter. */
export interface RouteHeader {
  /** The name as documented, e.g. `Idempotency-Key` (header names are matched in any case). */
  name: string;
  description: string;
  /** The longest value the route accepts (a longer one is a 422). */
  maxLength?: number;
}

/** One endpoint of the API. */
export interface RouteDefinition<A extends AuthKind, Q, B, R = unknown> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** Path under `/api/v1`, with `:name` parameters, e.g. `/account/subaccount/:subaccount_id`. */
  path: string;
  auth: A;
  /** Schema of the query parameters; omitted means the route reads none. */
  query?: z.ZodType<Q>;
  /** Schema of the JSON body; omitted means the route takes no body. */
  body?: z.ZodType<B>;
  /**
   * Set when the route reads its body as a stream of another media type (the suppression import's
   * `text/csv`): the handler reads it with `bodyChunks` (src/http/streamed-request.ts); the router
   * refuses another media type.
   */
  streamedBody?: StreamedBodyRule;
  /**
   * How a request counts against its key's rate limit. Omitted: one unit of the `requests`
   * allowance. `recipients`: `cost(body)` units of the `recipients` allowance (a body that fails
   * validation costs 1).
   */
  rateLimit?: { allowance: 'recipients'; cost(body: B): number };
  /**
   * Schema of the success answer's JSON body (the wire schema next to the function that builds it),
   * which the OpenAPI document publishes; the handler's answer is type-checked against it. For an
   * `export` route, the schema of one exported row.
   */
  response?: z.ZodType<R>;
  /** The status of a success answer (the OpenAPI document publishes it); default 200. */
  successStatus?: 200 | 201 | 202;
  /** Request headers the route reads besides its key and `X-Request-Id` (published in the OpenAPI document). */
  headers?: readonly RouteHeader[];
  /** Headers a success answer may carry besides those of every answer, by name, with their descriptions. */
  responseHeaders?: Readonly<Record<string, string>>;
  /**
   * Set when the answer is a streamed export of `response` rows instead of JSON: NDJSON or CSV by
   * `format` (`true`), or CSV alone (`'csv'`).
   */
  export?: true | 'csv';
  /** Set when the success answer is a file of this media type (a raw message's `message/rfc822`), not JSON. */
  mediaType?: string;
  /** Error statuses the route answers beyond those its path, query and body imply (published in the OpenAPI document). */
  alsoAnswers?: readonly ('410' | '422')[];
  /**
   * The members of the answer that hold a secret (a sub-account's `apiKey`, SMTP `password`s, a
   * webhook's signing `secret`), at any depth, and where they come from: `created` by this very
   * request (a creation or a rotation: the one answer that shows them), or `stored` earlier and read
   * again. A request marked {@link HttpRequest.hideStoredSecrets} (the dashboard's) gets stored ones
   * as `null`. A route whose response schema has such a member must declare it (test/unit/route-secrets.test.ts).
   */
  secrets?: RouteSecrets;
  handle(input: RouteInput<A, Q, B>): Promise<RouteResult<NoInfer<R> | StreamedBody | RawJson>>;
}

/** What {@link RouteDefinition.secrets} declares. */
export interface RouteSecrets {
  /** Member names, e.g. `['apiKey', 'password']`. */
  names: readonly string[];
  origin: 'created' | 'stored';
}

/** A route with its types erased, as the route table holds it. */
export type AnyRoute = RouteDefinition<AuthKind, unknown, unknown>;

/**
 * Declares a route; exists for type inference of `query`, `body`, the principal and the answer.
 *
 * @example
 * route({ method: 'GET', path: '/account/subaccount', auth: 'account', query: listQuerySchema,
 *   response: z.array(subAccountWireSchema), handle: async ({ query, principal, ctx }) => ({ body: [] }) });
 */
export function route<A extends AuthKind, Q = undefined, B = undefined, R = unknown>(
  definition: RouteDefinition<A, Q, B, R>,
): AnyRoute {
  return definition as unknown as AnyRoute;
}
