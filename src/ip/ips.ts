import { ConflictError, ForbiddenError, NotFoundError, ValidationError, type FieldIssue } from '../errors.js';
import type { ListQuery } from '../model/paging.js';
import { nowNs, type Clock } from '../model/time.js';
import { IpState, type IpRecord, type IpType, type NewIp } from '../store/ip-pool-store.js';
import { canonicalIp } from './addresses.js';
import type { MailplaneJobs } from '../jobs/kinds.js';
import type { JobQueue } from '../jobs/queue.js';
import type { MailplaneStore } from '../store/index.js';
import type { WarmupService } from '../warmup/service.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface IpsDeps {
  readonly store: MailplaneStore;
  readonly clock: Clock;
  readonly jobs: JobQueue<MailplaneJobs>;
  readonly warmup: WarmupService;
}

/** What `PUT /account/ip/allocate` asks for. */
export interface AllocateIpsInput {
  ips: readonly string[];
  type?: IpType;
  autoWarmupEnabled?: boolean;
}

/** The fields `PUT /account/ip/{id}` can change. */
export interface UpdateIpInput {
  autoWarmupEnabled?: boolean;
  /** 0 resumes sending (the IP becomes Active, or Warming while a warmup runs), 1 pauses it. */
  state?: 0 | 1;
  reverseDnsHostname?: string;
}

const notFound = (id: number | string) => new NotFoundError('IP_NOT_FOUND', `no IP with id ${id} in this account`);

/**
 * Canonical forms of `addresses`, in order, or a 422 naming each one that is not a usable address
 * or that repeats another (after canonicalisation `::FFFF:1.2.3.4` and `1.2.3.4` are the same).
 */
export function canonicalAddresses(addresses: readonly string[], field: string): string[] {
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  const out: string[] = [];
  addresses.forEach((raw, index) => {
    const ip = canonicalIp(raw);
    if (ip === null) {
      issues.push({
        path: `${field}.${index}`,
        message: `"${raw.slice(0, 60)}" is not an IPv4 or IPv6 address a host can send from`,
      });
    } else if (seen.has(ip)) {
      issues.push({ path: `${field}.${index}`, message: `${ip} is listed twice` });
    } else {
      seen.add(ip);
      out.push(ip);
    }
  });
  if (issues.length > 0) {
    throw new ValidationError(
      `the body is not valid (${issues[0]!.path}: ${issues[0]!.message})`,
      issues.slice(0, 50),
      'INVALID_IP_ADDRESS',
    );
  }
  return out;
}

/** Operations on the account's sending IPs, as the `/account/ip` endpoints use them. */
export const ipService = {
  /**
   * Registers the addresses as the account's IPs, all or none. An address this account or another
   * one already has is a 403: an address belongs to one account of the installation.
   */
  async allocate(ctx: IpsDeps, accountId: number, input: AllocateIpsInput): Promise<IpRecord[]> {
    const addresses = canonicalAddresses(input.ips, 'ips');
    const already = await ctx.store.ips.findByAddresses(accountId, addresses);
    if (already.length > 0) {
      throw new ConflictError(
        'IP_ALREADY_ALLOCATED',
        `already allocated to this account: ${already.map((ip) => ip.publicIp).join(', ')}`,
      );
    }
    const now = nowNs(ctx.clock);
    const warm = input.autoWarmupEnabled ?? false;
    const ips: NewIp[] = addresses.map((publicIp) => ({
      accountId,
      publicIp,
      reverseDnsHostname: '',
      type: input.type ?? 1,
      state: warm ? IpState.Warming : IpState.Active,
      autoWarmupEnabled: warm,
      warmupStartedAt: warm ? now : 0n,
      created: now,
    }));
    // The IPs and the evaluation jobs of their warmups are stored together.
    const outcome = await ctx.store.transaction(async (tx) => {
      const allocated = await tx.ips.allocate(accountId, ips);
      if (allocated.ok) await ctx.warmup.schedule(allocated.value, tx);
      return allocated;
    });
    if (!outcome.ok) {
      // Not this account's (checked above, unless a concurrent request of its own won): another
      // account holds it. Which one is not said; that the address is taken cannot be hidden.
      throw new ConflictError(
        'IP_ALREADY_ALLOCATED',
        `already allocated: ${outcome.address ?? 'one of the addresses'}`,
      );
    }
    if (warm) ctx.jobs.notify();
    return outcome.value;
  },

  list(ctx: IpsDeps, accountId: number, query: ListQuery): Promise<IpRecord[]> {
    return ctx.store.ips.list(accountId, query);
  },

  async get(ctx: IpsDeps, accountId: number, id: number | null): Promise<IpRecord> {
    const ip = id === null ? null : await ctx.store.ips.get(accountId, id);
    if (!ip) throw notFound(id ?? 'given');
    return ip;
  },

  /**
   * Pauses, resumes, switches auto warmup and sets the reverse DNS name. The resulting state:
   * Paused while paused; else Warming while a warmup runs (switching auto warmup on starts one,
   * switching it off ends it); else Active.
   */
  async update(ctx: IpsDeps, accountId: number, id: number | null, input: UpdateIpInput): Promise<IpRecord> {
    const current = await ipService.get(ctx, accountId, id);
    const now = nowNs(ctx.clock);
    const paused = (input.state ?? (current.state === IpState.Paused ? 1 : 0)) === 1;
    const warmup = input.autoWarmupEnabled ?? current.autoWarmupEnabled;
    let warmupStartedAt = current.warmupStartedAt;
    if (warmup && !current.autoWarmupEnabled) warmupStartedAt = now;
    if (!warmup) warmupStartedAt = 0n;
    const state = paused ? IpState.Paused : warmupStartedAt !== 0n ? IpState.Warming : IpState.Active;
    const started = warmupStartedAt !== current.warmupStartedAt && warmupStartedAt !== 0n;
    const updated = await ctx.store.transaction(async (tx) => {
      const ip = await tx.ips.update(accountId, current.id, {
        reverseDnsHostname: input.reverseDnsHostname,
        autoWarmupEnabled: warmup,
        warmupStartedAt,
        state,
        updated: now,
      });
      if (ip && started) await ctx.warmup.schedule([ip], tx);
      return ip;
    });
    if (!updated) throw notFound(current.id);
    if (started) ctx.jobs.notify();
    return updated;
  },

  /** Deletes an IP that is in no pool; one in a pool is a 403 (remove it from the pool first). */
  async delete(ctx: IpsDeps, accountId: number, id: number | null): Promise<IpRecord> {
    if (id === null) throw notFound('given');
    const outcome = await ctx.store.ips.delete(accountId, id);
    if (outcome.ok) return outcome.value;
    if (outcome.reason === 'not-found') throw notFound(id);
    throw new ForbiddenError(
      'IP_IN_POOL',
      `IP ${id} belongs to an IP pool; remove it from the pool before deleting it`,
    );
  },
};
