/**
 * Where a message leaves from: the routing engine (src/routing/, docs/routing.md) applied at
 * delivery. The pool is the send's `ippool`, else the sub-account's default pool, else the Shared
 * system pool; the pool's strategy picks an IP or a TPSP among those that can send (paused IPs
 * cannot); overflow follows the chain. An IP delivers through the instance transport bound to its
 * address; a TPSP through its own transport (`MailplaneOptions.tpspTransport`); the Shared pool
 * while it has no members from the host's default address. When no pool in the chain can send,
 * the message waits (a soft outcome that is not a bounce: src/delivery/routing-wait.ts). A warming
 * IP takes a provider's mail until today's cap of its warmup stage (src/warmup/caps.ts). Traffic
 * shaping admits each attempt of a source to a destination (route-admission.ts, src/shaping/).
 */
import type { SecretBox } from '../crypto/secrets.js';
import { domainOf, type MailboxProvider } from '../routing/providers.js';
import { ipStatus, routeMessage, type RouteDecision } from '../routing/router.js';
import { EntityStatus, type Availability } from '../routing/strategies.js';
import { isLimited, type Destination } from '../shaping/rules.js';
import type { AdmittedShaping, TrafficShaping } from '../shaping/service.js';
import { IpState } from '../store/ip-pool-store.js';
import type { MessageRecord, SendBatchRecord } from '../store/index.js';
import { warmupUsage, type WarmupSend } from '../warmup/caps.js';
import {
  earliestRetry,
  firstRateRefusal,
  IN_MEMORY_WAIT_MS,
  pause,
  sourceOf,
  sourcePrefix,
  transportLimits,
  type PaidSlot,
  type Refusal,
} from './route-admission.js';
import { RoutingTables, type AccountRouting, type RoutingTablesDeps } from './routing-tables.js';
import { TpspTransports, type TpspTransportFactory } from './routing-transports.js';
import type { DeliveryRoute, Transport } from './transport.js';

/** How long a message waits before routing is asked again when no pool can send it. */
export const ROUTING_WAIT_MS = 60_000;

/** The route of one attempt, or why the message waits. */
export type RouteChoice =
  /**
   * Send along `route`, through `transport` (a TPSP's), or the instance transport when `null`;
   * `shaping` is what traffic shaping admitted (ended by {@link DeliveryRouting.release}).
   */
  | { kind: 'send'; route: DeliveryRoute; transport: Transport | null; shaping: AdmittedShaping }
  /** No source can take the message now: try again at `retryAt` (epoch ms), with `slot` when one was booked. */
  | { kind: 'wait'; reason: string; retryAt: number; route: DeliveryRoute; slot?: PaidSlot };

/** One routing round: a choice, or the candidates shaping refused (to wait for in memory or book). */
type Round = RouteChoice | { kind: 'refused'; refusals: Refusal[]; accountId: number };

/** What the routing service works with. */
export interface DeliveryRoutingDeps extends RoutingTablesDeps {
  readonly secrets: SecretBox;
  /** Traffic shaping: the limits of each source to each destination (src/shaping/service.ts). */
  readonly shaping: TrafficShaping;
  /** Builds TPSP transports (`MailplaneOptions.tpspTransport`); none: messages routed to a TPSP wait. */
  tpspTransport?: TpspTransportFactory | undefined;
}

/**
 * Routing at delivery for one mailplane instance: its routing tables, the transports of its TPSPs,
 * the warmup sends and shaping admissions it takes. Built once by `createMailplane` (`context.routing`);
 * `mailplane.close()` closes it, and with it every TPSP transport.
 */
export class DeliveryRouting {
  readonly tables: RoutingTables;
  readonly transports: TpspTransports;
  readonly shaping: TrafficShaping;
  private warnedNoTpspTransport = false;

  constructor(private readonly deps: DeliveryRoutingDeps) {
    this.tables = new RoutingTables(deps);
    this.transports = new TpspTransports({ factory: deps.tpspTransport, secrets: deps.secrets });
    this.shaping = deps.shaping;
  }

  /**
   * Reloads what routing reads of an account and of a sub-account's default pool; called when a
   * delivery job starts, so each job routes with the pools, IP states and default pool as they are.
   */
  async refresh(accountId: number, subAccountId: number): Promise<void> {
    await this.tables.refresh(accountId);
    await this.tables.subAccountDefaultPool(accountId, subAccountId, true);
  }

  /**
   * Chooses the route of one delivery attempt of `message`. Advances the counters of the pool that
   * sends (round robin, volume schedule), so each call is one decision; a warming IP's send and a
   * shaping admission are held until {@link release}. `paid` is a slot the message booked earlier.
   * A wait for shaping shorter than `IN_MEMORY_WAIT_MS` (route-admission.ts) is waited here (`signal` ends it).
   */
  async choose(
    message: MessageRecord,
    batch: SendBatchRecord,
    options: { paid?: PaidSlot | undefined; signal?: AbortSignal | undefined } = {},
  ): Promise<RouteChoice> {
    const { clock } = this.deps;
    let paid = options.paid;
    const deadline = performance.now() + IN_MEMORY_WAIT_MS;
    for (;;) {
      const round = await this.route(message, batch, paid);
      if (round.kind !== 'refused') return round;
      const nowMs = clock.now();
      const unrouted: DeliveryRoute = { ipId: null, ipPoolId: message.ipPoolId, tpspId: null };
      const reason = `shaping: ${round.refusals.map((r) => `${r.key} ${r.answer.why}`).join(', ')}`;
      // The candidate whose rate frees first keeps its next slot for this message.
      const first = firstRateRefusal(round.refusals);
      const booked = first && (await this.book(round.accountId, first, nowMs));
      const retryAt = booked ? booked.at : earliestRetry(round.refusals, nowMs);
      const waitMs = retryAt - nowMs;
      if (options.signal?.aborted || performance.now() + waitMs > deadline) {
        return { kind: 'wait', reason, retryAt, route: unrouted, ...(booked && { slot: booked }) };
      }
      await pause(waitMs, options.signal);
      paid = booked ?? paid;
    }
  }

  /** Books the next slot of a refused candidate's rate, answering it (`undefined`: it could not be booked). */
  private async book(accountId: number, refusal: Refusal, nowMs: number): Promise<PaidSlot | undefined> {
    const answer = await this.deps.store.shaping.admit({
      key: refusal.key,
      accountId,
      holder: this.shaping.holder,
      nowMs,
      intervalMs: refusal.intervalMs,
      // Only the slot is booked here: the connection is asked for when the message comes back.
      maxConnections: null,
      leaseMs: 0,
      book: true,
      paid: false,
    });
    if (answer.admitted) return { key: refusal.key, at: nowMs };
    return answer.booked ? { key: refusal.key, at: answer.retryAt } : undefined;
  }

  /** One routing decision with its admissions: a choice, or every candidate refused by shaping. */
  private async route(message: MessageRecord, batch: SendBatchRecord, paid: PaidSlot | undefined): Promise<Round> {
    const { clock, warmup } = this.deps;
    const routing = await this.tables.account(message.accountId);
    const requested = message.ipPoolId === null ? undefined : routing.table.pools.get(message.ipPoolId);
    // A requested pool deleted since the send was accepted: the message goes where an unnamed one would.
    const subAccountDefaultPoolId = requested
      ? null
      : await this.tables.subAccountDefaultPool(message.accountId, message.subAccountId);
    const destination = await this.destinationOf(message.to.email);
    const provider = destination.provider;
    const refused = new Map<string, Refusal>();
    // A message with a booked slot goes from that source if routing still allows it.
    let preferred = paid?.key.slice(0, paid.key.indexOf('|'));
    const availability: Availability = (entity) => {
      const prefix = sourcePrefix(entity);
      const refusal = refused.get(prefix);
      if (refusal) return refusal.answer.why === 'suspended' ? EntityStatus.Paused : EntityStatus.AtCap;
      if (preferred !== undefined && prefix !== preferred) return EntityStatus.AtCap;
      if (entity.kind !== 'ip') return EntityStatus.Ready;
      const usage = warmupUsage(routing.warmup, entity.id, provider);
      return ipStatus(routing.ips.get(entity.id)?.state ?? IpState.Paused, usage?.cap ?? Infinity, usage?.sent ?? 0);
    };
    const decide = () =>
      routeMessage(routing.table, {
        poolName: requested?.name,
        subAccountDefaultPoolId,
        provider,
        fromDomain: domainOf(batch.content.from.email),
        availability,
      });
    const retryAt = clock.now() + ROUTING_WAIT_MS;
    const unrouted: DeliveryRoute = { ipId: null, ipPoolId: message.ipPoolId, tpspId: null };
    let warmupRefusals = 0;
    for (;;) {
      const decision = decide();
      const prefix = decision.ok ? sourcePrefix(decision.entity) : undefined;
      if (preferred !== undefined && prefix !== preferred) {
        preferred = undefined;
        continue;
      }
      preferred = undefined;
      if (!decision.ok) {
        if (refused.size > 0) return { kind: 'refused', refusals: [...refused.values()], accountId: message.accountId };
        return { kind: 'wait', reason: waitReason(decision), retryAt, route: unrouted };
      }
      // The host's own pool is chosen whatever the availability says (it has nothing else): once its
      // source refused, routing again would pick it again, forever.
      if (refused.has(prefix!))
        return { kind: 'refused', refusals: [...refused.values()], accountId: message.accountId };
      let send: WarmupSend | undefined;
      // A warming IP whose cap other nodes reached since the table was loaded refuses the
      // reservation and counts as full from then on: route again, past it.
      if (decision.entity.kind === 'ip') {
        const reserved = await warmup.reserve(routing.warmup, decision.entity.id, provider);
        if (reserved === null) {
          if (++warmupRefusals > routing.warmup.warming.size)
            return { kind: 'wait', reason: 'warmup caps reached on every warming IP tried', retryAt, route: unrouted };
          continue;
        }
        send = reserved;
      }
      const entity = decision.entity;
      const resolved = await this.shaping.resolve(
        message.accountId,
        sourceOf(entity, entity.kind === 'ip' ? entity.address : ''),
        destination,
      );
      const due = paid !== undefined && paid.key === resolved.key && paid.at <= clock.now() + 5;
      const answer = await this.shaping.admit(message.accountId, resolved, { book: false, paid: due });
      if (!answer.admitted) {
        if (send && entity.kind === 'ip') await warmup.release(entity.id, send);
        refused.set(prefix!, { source: prefix!, key: resolved.key, intervalMs: resolved.intervalMs, answer });
        continue;
      }
      const admitted: AdmittedShaping = {
        ...resolved,
        accountId: message.accountId,
        provider,
        factor: answer.factor,
        counted: isLimited(resolved),
      };
      return this.sendChoice(routing, decision, admitted, send);
    }
  }

  /** The recipient's domain, its mailbox provider and, for a custom domain, the MX hosts it was classified by. */
  private async destinationOf(address: string): Promise<Destination> {
    const domain = domainOf(address);
    const provider: MailboxProvider = await this.tables.classifier.classify(domain);
    const mxHosts = this.tables.classifier.mxHostsCached(domain);
    return { domain, provider, ...(mxHosts && { mxHosts }) };
  }

  /** The route of an admitted decision: the source's address and name, its transport, the shaping limits. */
  private async sendChoice(
    routing: AccountRouting,
    decision: Extract<RouteDecision, { ok: true }>,
    shaping: AdmittedShaping,
    send: WarmupSend | undefined,
  ): Promise<RouteChoice> {
    const poolId = decision.pool.id;
    const entity = decision.entity;
    const limits = transportLimits(shaping);
    const connections = this.shaping.connectionGate(shaping);
    if (entity.kind === 'host')
      return {
        kind: 'send',
        route: { ipId: null, ipPoolId: poolId, tpspId: null, limits, ...(connections && { connections }) },
        transport: null,
        shaping,
      };
    if (entity.kind === 'ip') {
      const ip = routing.ips.get(entity.id);
      const route: DeliveryRoute = {
        localAddress: entity.address,
        ipId: entity.id,
        ipPoolId: poolId,
        tpspId: null,
        limits,
        ...(connections && { connections }),
      };
      // Without a reverse-DNS name the transport greets with its own default name (the host name).
      if (ip?.reverseDnsHostname) route.ehloName = ip.reverseDnsHostname;
      if (send) route.warmup = send;
      return { kind: 'send', route, transport: null, shaping };
    }
    const tpsp = routing.tpsps.get(entity.id);
    const transport = tpsp ? this.transports.transportFor(tpsp) : null;
    const route: DeliveryRoute = { ipId: null, ipPoolId: poolId, tpspId: entity.id, limits };
    if (!transport) {
      await this.shaping.release(shaping);
      if (!this.warnedNoTpspTransport) {
        this.warnedNoTpspTransport = true;
        this.deps.logger.warn(
          'delivery: a pool routes to a TPSP but no tpspTransport is configured (MailplaneOptions.tpspTransport); its messages wait',
        );
      }
      const retryAt = this.deps.clock.now() + ROUTING_WAIT_MS;
      return { kind: 'wait', reason: `no transport for TPSP ${entity.id}`, retryAt, route };
    }
    return { kind: 'send', route, transport, shaping };
  }

  /**
   * Ends what {@link choose} held for an attempt once its outcome is stored (or was not): the
   * warmup reservation, and the message in flight that shaping counted.
   */
  async release(choice: RouteChoice): Promise<void> {
    await this.deps.warmup.release(choice.route.ipId, choice.route.warmup);
    if (choice.kind === 'send') await this.shaping.release(choice.shaping);
  }

  /** Closes every TPSP transport and drops the tables (`mailplane.close()`, after the job runner stopped). */
  async close(): Promise<void> {
    this.tables.close();
    await this.transports.close();
  }
}

/** Why routing found no pool, as the wait's reason. */
function waitReason(decision: Extract<RouteDecision, { ok: false }>): string {
  return 'wait' in decision
    ? `${decision.wait.reason}, ${decision.wait.end}, pools tried ${decision.wait.tried.join(' > ')}`
    : `unknown pool ${decision.unknownPool}`;
}
