/**
 * Receiving mail on a sending domain (docs/inbound.md, "Receiving on a domain"): enabling and
 * disabling it, the MX check, and the domain resource with its `inbound` field.
 */
import type { DnsResolver } from '../dns/resolver.js';
import { checkMxRecord } from '../dns/mx-check.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { nowNs, type Clock } from '../model/time.js';
import type { DomainRecord, InboundDomainRecord, MailplaneStore } from '../store/index.js';
import { domainToWire, type DomainWire } from './domain-wire.js';

/** What receiving works with: the store, the resolver of the MX check, the clock and the receiving host. */
export interface ReceivingDeps {
  readonly store: MailplaneStore;
  readonly resolver: DnsResolver;
  readonly clock: Clock;
  readonly config: { readonly inbound: { readonly hostname: string | null } };
}

const notFound = (id: number | string) =>
  new NotFoundError('DOMAIN_NOT_FOUND', `no domain with id ${id} in this sub-account`);

/** The domain resource of `domain`, with its receiving state read from the store. */
export async function domainWireOf(deps: Omit<ReceivingDeps, 'resolver' | 'clock'>, domain: DomainRecord) {
  const inbound = await deps.store.inbound.getDomain(domain.subAccountId, domain.id);
  return domainToWire(domain, { inbound, hostname: deps.config.inbound.hostname });
}

/** The domain resources of `domains` (all of `subAccountId`), reading the receiving ones in one call. */
export async function domainWiresOf(
  deps: Omit<ReceivingDeps, 'resolver' | 'clock'>,
  subAccountId: number,
  domains: readonly DomainRecord[],
): Promise<DomainWire[]> {
  const receiving = new Map((await deps.store.inbound.listDomains(subAccountId)).map((d) => [d.domainId, d]));
  const { hostname } = deps.config.inbound;
  return domains.map((domain) => domainToWire(domain, { inbound: receiving.get(domain.id) ?? null, hostname }));
}

/**
 * Checks that the receiving domain's MX record points at the receiving host and stores the result
 * (`mxVerified`, the reason when not). A domain that does not receive, or an instance without a
 * receiving host, is left as it is.
 */
export async function checkReceivingMx(
  deps: ReceivingDeps,
  domain: Pick<DomainRecord, 'id' | 'subAccountId' | 'name'>,
  fresh: boolean,
): Promise<InboundDomainRecord | null> {
  const { hostname } = deps.config.inbound;
  const inbound = await deps.store.inbound.getDomain(domain.subAccountId, domain.id);
  if (!inbound || hostname === null) return inbound;
  const check = await checkMxRecord(deps.resolver, domain.name, hostname, { fresh });
  const at = nowNs(deps.clock);
  await deps.store.inbound.setMxCheck(domain.id, { ...check, at });
  return { ...inbound, mxVerified: check.verified, mxFailureReason: check.reason, mxCheckedAt: at };
}

/** What enabling and disabling work with: {@link ReceivingDeps}, and the recipients `RCPT TO` remembers. */
export interface ReceivingChangeDeps extends ReceivingDeps {
  /** The listener's cache of receiving domains and routes (src/domain/recipient-directory.ts): told of each change. */
  readonly inboundRecipients: { changed(): void };
}

/** `POST` and `DELETE /subaccount/domain/{id}/inbound`. */
export const receivingService = {
  /**
   * Enables receiving on a verified domain of the sub-account and checks its MX record now.
   * Throws 406 `DOMAIN_NOT_FOUND`, 422 `INBOUND_NOT_CONFIGURED` (no `inbound.hostname`), 422
   * `DOMAIN_NOT_VERIFIED`, 403 `INBOUND_DOMAIN_TAKEN` (another sub-account receives on that name).
   */
  async enable(deps: ReceivingChangeDeps, subAccountId: number, domainId: number | null): Promise<DomainWire> {
    const domain = domainId === null ? null : await deps.store.domains.get(subAccountId, domainId);
    if (!domain) throw notFound(domainId ?? 'given');
    if (deps.config.inbound.hostname === null)
      throw new ValidationError('the instance has no inbound.hostname', [], 'INBOUND_NOT_CONFIGURED');
    if (!domain.verified)
      throw new ValidationError(
        `the domain ${domain.name} is not verified: publish its DKIM record and verify it first`,
        [],
        'DOMAIN_NOT_VERIFIED',
      );
    // One sub-account receives on a name: the listener could not tell whose a recipient is otherwise.
    const holder = await deps.store.inbound.receivingDomain(domain.name);
    if (holder && holder.domainId !== domain.id)
      throw new ConflictError('INBOUND_DOMAIN_TAKEN', `another sub-account already receives mail for ${domain.name}`);
    const enabled = await deps.store.inbound.enableDomain(subAccountId, domain.id, nowNs(deps.clock));
    if (!enabled.ok) throw notFound(domain.id);
    deps.inboundRecipients.changed();
    const inbound = (await checkReceivingMx(deps, domain, true)) ?? enabled.value;
    return domainToWire(domain, { inbound, hostname: deps.config.inbound.hostname });
  },

  /** Stops receiving on the domain (its routes are kept); answers the domain. Throws 406 `DOMAIN_NOT_FOUND`. */
  async disable(deps: ReceivingChangeDeps, subAccountId: number, domainId: number | null): Promise<DomainWire> {
    const domain = domainId === null ? null : await deps.store.domains.get(subAccountId, domainId);
    if (!domain) throw notFound(domainId ?? 'given');
    await deps.store.inbound.disableDomain(subAccountId, domain.id);
    deps.inboundRecipients.changed();
    return domainToWire(domain, { inbound: null, hostname: deps.config.inbound.hostname });
  },
};
