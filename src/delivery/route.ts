/**
 * Where a message leaves from: the routing engine (src/routing/, docs/routing.md) applied at
 * delivery. The pool is the send's `ippool`, else the sub-account's default pool, else the Shared
 * system pool; the pool's strategy picks an IP or a TPSP among those that can send (paused IPs
 * cannot); overflow follows the chain. An IP delivers through the instance transport bound to its
 * address; a TPSP through its own transport (`MailplaneOptions.tpspTransport`); the Shared pool
 * while it has no members from the host's default address. When no pool in the chain can send,
 * the message waits (a soft outcome that is not a bounce: src/delivery/routing-wait.ts). A warming
 * IP takes a provider's mail until today's cap of its warmup stage (src/warmup/caps.ts).
 */
import type { SecretBox } from '../crypto/secrets.js';
import { domainOf, MailboxProvider } from '../routing/providers.js';
import { ipStatus, routeMessage } from '../routing/router.js';
import { EntityStatus, type Availability } from '../routing/strategies.js';
import { IpState } from '../store/ip-pool-store.js';
import type { MessageRecord, SendBatchRecord } from '../store/index.js';
import { warmupUsage, type WarmupSend } from '../warmup/caps.js';
import { RoutingTables, type RoutingTablesDeps } from './routing-tables.js';
import { TpspTransports, type TpspTransportFactory } from './routing-transports.js';
import type { DeliveryRoute, Transport } from './transport.js';

/** How long a message waits before routing is asked again when no pool can send it. */
export const ROUTING_WAIT_MS = 60_000;

/** The route of one attempt, or why the message waits. */
export type RouteChoice =
  /** Send along `route`, through `transport` (a TPSP's), or the instance transport when `null`. */
  | { kind: 'send'; route: DeliveryRoute; transport: Transport | null }
  /** No pool of the chain can take the message now: try again at `retryAt` (epoch ms). */
  | { kind: 'wait'; reason: string; retryAt: number; route: DeliveryRoute };

/** What the routing service works with. */
export interface DeliveryRoutingDeps extends RoutingTablesDeps {
  readonly secrets: SecretBox;
  /** Builds TPSP transports (`MailplaneOptions.tpspTransport`); none: messages routed to a TPSP wait. */
  tpspTransport?: TpspTransportFactory | undefined;
}

/**
 * Routing at delivery for one mailplane instance: its routing tables, the transports of its TPSPs
 * and the warmup sends it reserves. Built once by `createMailplane` (`context.routing`);
 * `mailplane.close()` closes it, and with it every TPSP transport.
 */
export class DeliveryRouting {
  readonly tables: RoutingTables;
  readonly transports: TpspTransports;
  private warnedNoTpspTransport = false;

  constructor(private readonly deps: DeliveryRoutingDeps) {
    this.tables = new RoutingTables(deps);
    this.transports = new TpspTransports({ factory: deps.tpspTransport, secrets: deps.secrets });
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
   * sends (round robin, volume schedule), so each call is one decision; a warming IP's send is
   * reserved until {@link release}.
   */
  async choose(message: MessageRecord, batch: SendBatchRecord): Promise<RouteChoice> {
    const { clock, logger, warmup } = this.deps;
    const routing = await this.tables.account(message.accountId);
    const requested = message.ipPoolId === null ? undefined : routing.table.pools.get(message.ipPoolId);
    // A requested pool deleted since the send was accepted: the message goes where an unnamed one would.
    const subAccountDefaultPoolId = requested
      ? null
      : await this.tables.subAccountDefaultPool(message.accountId, message.subAccountId);
    const provider = routing.needsProvider
      ? await this.tables.classifier.classify(message.to.email)
      : MailboxProvider.Default;
    const availability: Availability = (entity) => {
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
    let decision = decide();
    let send: WarmupSend | undefined;
    // A warming IP whose cap other nodes reached since the table was loaded refuses the
    // reservation and counts as full from then on: route again, past it.
    for (let tries = 0; decision.ok && decision.entity.kind === 'ip'; tries++) {
      const reserved = await warmup.reserve(routing.warmup, decision.entity.id, provider);
      if (reserved !== null) {
        send = reserved;
        break;
      }
      if (tries >= routing.warmup.warming.size)
        return { kind: 'wait', reason: 'warmup caps reached on every warming IP tried', retryAt, route: unrouted };
      decision = decide();
    }
    if (!decision.ok) {
      const reason =
        'wait' in decision
          ? `${decision.wait.reason}, ${decision.wait.end}, pools tried ${decision.wait.tried.join(' > ')}`
          : `unknown pool ${decision.unknownPool}`;
      return { kind: 'wait', reason, retryAt, route: unrouted };
    }
    const poolId = decision.pool.id;
    const entity = decision.entity;
    if (entity.kind === 'host')
      return { kind: 'send', route: { ipId: null, ipPoolId: poolId, tpspId: null }, transport: null };
    if (entity.kind === 'ip') {
      const ip = routing.ips.get(entity.id);
      const route: DeliveryRoute = { localAddress: entity.address, ipId: entity.id, ipPoolId: poolId, tpspId: null };
      // Without a reverse-DNS name the transport greets with its own default name (the host name).
      if (ip?.reverseDnsHostname) route.ehloName = ip.reverseDnsHostname;
      if (send) route.warmup = send;
      return { kind: 'send', route, transport: null };
    }
    const tpsp = routing.tpsps.get(entity.id);
    const transport = tpsp ? this.transports.transportFor(tpsp) : null;
    const route: DeliveryRoute = { ipId: null, ipPoolId: poolId, tpspId: entity.id };
    if (!transport) {
      if (!this.warnedNoTpspTransport) {
        this.warnedNoTpspTransport = true;
        logger.warn(
          'delivery: a pool routes to a TPSP but no tpspTransport is configured (MailplaneOptions.tpspTransport); its messages wait',
        );
      }
      return { kind: 'wait', reason: `no transport for TPSP ${entity.id}`, retryAt, route };
    }
    return { kind: 'send', route, transport };
  }

  /** Ends the warmup reservation of a route {@link choose} answered, once its outcome is stored (or was not). */
  release(route: DeliveryRoute): Promise<void> {
    return this.deps.warmup.release(route.ipId, route.warmup);
  }

  /** Closes every TPSP transport and drops the tables (`mailplane.close()`, after the job runner stopped). */
  async close(): Promise<void> {
    this.tables.close();
    await this.transports.close();
  }
}
