import type { ListQuery } from '../model/paging.js';
import type { EpochNs } from '../model/time.js';
import type { Outcome } from './outcome.js';

/**
 * A sending domain of one sub-account, with the DKIM key it signs with, the DNS records its owner
 * publishes (snapshotted at creation, so changing the operator's configuration never moves the
 * records a customer has already published) and the results of the last DNS check.
 */
export interface DomainRecord {
  id: number;
  subAccountId: number;
  /** The normalised name: lower-case ASCII, IDN labels as punycode, no trailing dot. */
  name: string;
  /** DKIM selector; the public key is published at `<selector>._domainkey.<name>`. */
  dkimSelector: string;
  /** The DKIM public key as base64 SubjectPublicKeyInfo DER (the `p=` of the DKIM record). */
  dkimPublicKey: string;
  /** The DKIM private key (PKCS#8 PEM), encrypted with the instance's SecretBox. Never returned. */
  dkimPrivateKeySealed: string;
  /** Host of the Return-Path CNAME, `<label>.<name>`; also the envelope sender domain. */
  returnPathHost: string;
  /** Where the Return-Path CNAME points (the operator's bounce host). */
  returnPathTarget: string;
  /** Host of the tracking CNAME, `<label>.<name>`. */
  trackHost: string;
  /** Where the tracking CNAME points (the operator's tracking host). */
  trackTarget: string;
  dkimVerified: boolean;
  spfVerified: boolean;
  dmarcVerified: boolean;
  returnPathVerified: boolean;
  trackVerified: boolean;
  /** Overall status; the spec makes it true exactly when DKIM is verified. */
  verified: boolean;
  /** Why the last check of each record failed; empty when verified or not yet checked. */
  dkimFailureReason: string;
  spfFailureReason: string;
  dmarcFailureReason: string;
  trackFailureReason: string;
  returnPathFailureReason: string;
  /** DNS provider detected from the domain's name servers; empty until detected. */
  dnsProvider: string;
  /** `YYYY-MM-DD` registration date from public registration data; empty until known. */
  domainRegisteredDate: string;
  /** When the DNS records were last checked, or `0n` when never. */
  lastCheckedAt: EpochNs;
  created: EpochNs;
  updated: EpochNs;
  /**
   * The key a DKIM rotation made, not signing yet: it replaces the signing key once its record
   * verifies (docs/domains.md, "DKIM key rotation"). `null` when no rotation is under way.
   */
  dkimPending: PendingDkimKey | null;
  /** The key that signed before the last rotation: its record stays listed until `retireAt`. `null` when none. */
  dkimPrevious: PreviousDkimKey | null;
  /** When the current key took over in a rotation; `0n` while it is the domain's first key. */
  dkimRotatedAt: EpochNs;
}

/** A DKIM key waiting for its record to verify (see {@link DomainRecord.dkimPending}). */
export interface PendingDkimKey {
  selector: string;
  /** base64 SubjectPublicKeyInfo DER. */
  publicKey: string;
  /** PKCS#8 PEM, encrypted with the instance's SecretBox. Never returned. */
  privateKeySealed: string;
  created: EpochNs;
  /** Why the last check of its record failed; empty before the first check. */
  failureReason: string;
}

/** A retired signing key whose record is still listed (see {@link DomainRecord.dkimPrevious}). */
export interface PreviousDkimKey {
  selector: string;
  publicKey: string;
  /** When it is dropped from the domain. */
  retireAt: EpochNs;
}

/** What {@link DomainStore.updateDkimKeys} changes; omitted fields stay. */
export interface DkimKeysPatch {
  /** The signing key. */
  current?: { selector: string; publicKey: string; privateKeySealed: string };
  pending?: PendingDkimKey | null;
  previous?: PreviousDkimKey | null;
  rotatedAt?: EpochNs;
  dkimVerified?: boolean;
  verified?: boolean;
  dkimFailureReason?: string;
  updated: EpochNs;
}

/** What {@link DomainStore.create} needs; every verification field starts false or empty. */
export interface NewDomain {
  subAccountId: number;
  name: string;
  dkimSelector: string;
  dkimPublicKey: string;
  dkimPrivateKeySealed: string;
  returnPathHost: string;
  returnPathTarget: string;
  trackHost: string;
  trackTarget: string;
  created: EpochNs;
}

/** The fields a DNS check writes through {@link DomainStore.updateVerification}; omitted ones stay. */
export interface DomainVerificationPatch {
  dkimVerified?: boolean;
  spfVerified?: boolean;
  dmarcVerified?: boolean;
  returnPathVerified?: boolean;
  trackVerified?: boolean;
  /** Overall status: the caller sets it to `dkimVerified`, as the spec defines it. */
  verified?: boolean;
  dkimFailureReason?: string;
  spfFailureReason?: string;
  dmarcFailureReason?: string;
  trackFailureReason?: string;
  returnPathFailureReason?: string;
  dnsProvider?: string;
  domainRegisteredDate?: string;
  lastCheckedAt?: EpochNs;
  updated: EpochNs;
}

/**
 * Storage of sending domains. Every read and write is scoped by `subAccountId`: a domain of another
 * sub-account is indistinguishable from a missing one. Names are compared exactly; callers store
 * them normalised (lower-case ASCII), so exact comparison is case-insensitive in effect.
 *
 * - `create` MUST answer `duplicate-name` when the sub-account already has a domain of that name,
 *   also under concurrent creates; another sub-account MAY hold the same name.
 * - `list` MUST order by id ascending and match `search` as a literal, case-insensitive substring
 *   of the name (`%`, `_` and `\` match themselves).
 * - `findByName` MUST be a single indexed lookup: the send path calls it for every request.
 * - `updateVerification` MUST change only the fields given, and answer `null` for a domain that is
 *   missing or belongs to another sub-account.
 */
export interface DomainStore {
  create(input: NewDomain): Promise<Outcome<DomainRecord, 'duplicate-name'>>;
  get(subAccountId: number, id: number): Promise<DomainRecord | null>;
  list(subAccountId: number, query: ListQuery): Promise<DomainRecord[]>;
  /** The sub-account's domain with exactly this (normalised) name, or `null`. */
  findByName(subAccountId: number, name: string): Promise<DomainRecord | null>;
  updateVerification(subAccountId: number, id: number, patch: DomainVerificationPatch): Promise<DomainRecord | null>;
  /**
   * Changes the DKIM keys of a domain, only if its pending key's selector is `ifPendingSelector`
   * (`''`: no pending key) at that moment, in one atomic step. Answers the updated domain, or
   * `null` when the domain is missing, belongs to another sub-account, or the condition failed.
   * Two concurrent rotations, or two nodes promoting one pending key, thus change it once.
   */
  updateDkimKeys(
    subAccountId: number,
    id: number,
    ifPendingSelector: string,
    patch: DkimKeysPatch,
  ): Promise<DomainRecord | null>;
  /** True when the domain existed in that sub-account and is now gone. */
  delete(subAccountId: number, id: number): Promise<boolean>;
}
