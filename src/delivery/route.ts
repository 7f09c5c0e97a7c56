/**
 * Where a message leaves from: the routing engine (src/routing/, docs/routing.md) applied at
 * delivery. The pool is the send's `ippool`, else the sub-account's default pool, else the Shared
 * system pool; the pool's strategy picks an IP or a TPSP among those that can send (paused IPs
 * cannot); overflow follows the chain. An IP delivers through the instance transport bound to its
 * address; a TPSP through its own transport (`MailplaneOptions.tpspTransport`); the Shared pool
 * while it has no members from the host's default address. When no pool in the chain can send,
 * the message waits (a soft outcome that is not a bounce: src/delivery/routing-wait.ts). A warming
 * IP takes a provider's mail until today's cap of its warmup stage (src/delivery/warmup-caps.ts).
 */
import type { MailplaneContext } from '../context.js';
import { domainOf, MailboxProvider } from '../routing/providers.js';
import { ipStatus, routeMessage } from '../routing/router.js';
import { EntityStatus, type Availability } from '../routing/strategies.js';
import { IpState } from '../store/ip-pool-store.js';
import type { MessageRecord, SendBatchRecord } from '../store/index.js';
import { accountRouting, providerClassifier, subAccountDefaultPool } from './routing-tables.js';
import { tpspTransportFor } from './routing-transports.js';
import type { DeliveryRoute, Transport } from './transport.js';
import { reserveWarmupSend, warmupUsage } from './warmup-caps.js';

/** How long a message waits before routing is asked again when no pool can send it. */
export const ROUTING_WAIT_MS = 60_000;

/** The route of one attempt, or why the message waits. */
export type RouteChoice =
  /** Send along `route`, through `transport` (a TPSP's), or the instance transport when `null`. */
  | { kind: 'send'; route: DeliveryRoute; transport: Transport | null }
  /** No pool of the chain can take the message now: try again at `retryAt` (epoch ms). */
  | { kind: 'wait'; reason: string; retryAt: number; route: DeliveryRoute };

const warnedNoTpspTransport = new WeakSet<MailplaneContext>();

/**
 * Chooses the route of one delivery attempt of `message`. Advances the counters of the pool that
 * sends (round robin, volume schedule), so each call is one decision.
 */
export async function chooseRoute(ctx: MailplaneContext, message: MessageRecord, batch: SendBatchRecord): Promise<RouteChoice> {
  const routing = await accountRouting(ctx, message.accountId);
  const requested = message.ipPoolId === null ? undefined : routing.table.pools.get(message.ipPoolId);
  // A requested pool deleted since the send was accepted: the message goes where an unnamed one would.
  const subAccountDefaultPoolId = requested ? null : await subAccountDefaultPool(ctx, message.accountId, message.subAccountId);
  const provider = routing.needsProvider ? await providerClassifier(ctx).classify(message.to.email) : MailboxProvider.Default;
  const availability: Availability = (entity) => {
    if (entity.kind !== 'ip') return EntityStatus.Ready;
    const usage = warmupUsage(routing.warmup, entity.id, provider);
    return ipStatus(routing.ips.get(entity.id)?.state ?? IpState.Paused, usage?.cap ?? Infinity, usage?.sent ?? 0);
  };
  const decision = routeMessage(routing.table, {
    poolName: requested?.name,
    subAccountDefaultPoolId,
    provider,
    fromDomain: domainOf(batch.content.from.email),
    availability,
  });
  const retryAt = ctx.clock.now() + ROUTING_WAIT_MS;
  const unrouted: DeliveryRoute = { ipId: null, ipPoolId: message.ipPoolId, tpspId: null };
  if (!decision.ok) {
    const reason = 'wait' in decision ? `${decision.wait.reason}, ${decision.wait.end}, pools tried ${decision.wait.tried.join(' > ')}` : `unknown pool ${decision.unknownPool}`;
    return { kind: 'wait', reason, retryAt, route: unrouted };
  }
  const poolId = decision.pool.id;
  const entity = decision.entity;
  if (entity.kind === 'host') return { kind: 'send', route: { ipId: null, ipPoolId: poolId, tpspId: null }, transport: null };
  if (entity.kind === 'ip') {
    const ip = routing.ips.get(entity.id);
    const route: DeliveryRoute = { localAddress: entity.address, ipId: entity.id, ipPoolId: poolId, tpspId: null };
    // Without a reverse-DNS name the transport greets with its own default name (the host name).
    if (ip?.reverseDnsHostname) route.ehloName = ip.reverseDnsHostname;
    const warmup = reserveWarmupSend(ctx, routing.warmup, entity.id, provider);
    if (warmup) route.warmup = warmup;
    return { kind: 'send', route, transport: null };
  }
  const tpsp = routing.tpsps.get(entity.id);
  const transport = tpsp ? tpspTransportFor(ctx, tpsp) : null;
  const route: DeliveryRoute = { ipId: null, ipPoolId: poolId, tpspId: entity.id };
  if (!transport) {
    if (!warnedNoTpspTransport.has(ctx)) {
      warnedNoTpspTransport.add(ctx);
      ctx.logger.warn('delivery: a pool routes to a TPSP but no tpspTransport is configured (MailplaneOptions.tpspTransport); its messages wait');
    }
    return { kind: 'wait', reason: `no transport for TPSP ${entity.id}`, retryAt, route };
  }
  return { kind: 'send', route, transport };
}
