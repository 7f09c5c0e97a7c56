/**
 * The envelope recipients of a send request and why any of them is dropped. Every `to` entry and
 * each of its cc and bcc copies gets the same checks, in the same order: a valid address, not
 * suppressed, a verified sending domain. A copy is also dropped when it repeats its recipient's
 * address or an earlier copy of it (the person would get the email twice), and when the recipient
 * it is a copy of has an invalid address (its `To` header could not be written). A suppressed
 * recipient does not stop its copies: suppression is per address, as SendGrid and Postmark do it.
 */
import { emailAddressProblem } from '../model/email-address.js';
import type { SendRequest } from './request.js';

/** Why a recipient was dropped before sending (the response's `errorCode`, see `DropReason`). */
export type DropReasonName =
  'INVALID_ADDRESS' | 'SUPPRESSED' | 'SENDER_DOMAIN_NOT_VERIFIED' | 'DUPLICATE_RECIPIENT' | 'SUBACCOUNT_BLOCKED';

/** Why a recipient is dropped before sending. */
export interface Drop {
  reason: DropReasonName;
  detail: string;
}

/** One envelope recipient: a `to` entry (`kind: 'to'`) or one of its copies. */
export interface EnvelopeRecipient {
  kind: 'to' | 'cc' | 'bcc';
  email: string;
  name: string;
  /** What it is rendered with: a copy's own custom fields over its recipient's; a `to` entry's own. */
  customFields: Record<string, string>;
  /** The custom fields given on this entry of the request. */
  givenFields: Record<string, string>;
  /** Why it is dropped, or `null` while it is sent. */
  drop: Drop | null;
}

/** A cc or bcc copy as an envelope recipient. */
export interface CopyEnvelopeRecipient extends EnvelopeRecipient {
  kind: 'cc' | 'bcc';
}

/** A `to` entry with its copies, cc first, each in request order. */
export interface PlannedRecipient {
  to: EnvelopeRecipient;
  copies: CopyEnvelopeRecipient[];
}

type Copy = NonNullable<SendRequest['to'][number]['cc']>[number];

/**
 * The envelope recipients of `request` with the drops that need no lookup: invalid addresses and
 * repeated copies. {@link applyListDrops} adds the suppression list's and the sending domain's.
 */
export function planRecipients(request: SendRequest): PlannedRecipient[] {
  return request.to.map((to) => {
    const problem = emailAddressProblem(to.email);
    const customFields = to.customFields ?? {};
    const planned: PlannedRecipient = {
      to: {
        kind: 'to',
        email: to.email,
        name: to.name ?? '',
        customFields,
        givenFields: customFields,
        drop: problem === null ? null : { reason: 'INVALID_ADDRESS', detail: `the recipient address ${problem}` },
      },
      copies: [],
    };
    const seen = new Set([to.email.toLowerCase()]);
    const copy = (kind: 'cc' | 'bcc', c: Copy): CopyEnvelopeRecipient => {
      const own = emailAddressProblem(c.email);
      const key = c.email.toLowerCase();
      const drop: Drop | null =
        own !== null
          ? { reason: 'INVALID_ADDRESS', detail: `the ${kind} address ${own}` }
          : problem !== null
            ? {
                reason: 'INVALID_ADDRESS',
                detail: `the recipient it is a copy of has an invalid address (it ${problem})`,
              }
            : seen.has(key)
              ? { reason: 'DUPLICATE_RECIPIENT', detail: `the ${kind} address is already a recipient of this message` }
              : null;
      seen.add(key);
      const givenFields = c.customFields ?? {};
      return {
        kind,
        email: c.email,
        name: c.name ?? '',
        customFields: { ...customFields, ...givenFields },
        givenFields,
        drop,
      };
    };
    planned.copies.push(...(to.cc ?? []).map((c) => copy('cc', c)), ...(to.bcc ?? []).map((c) => copy('bcc', c)));
    return planned;
  });
}

/** Every recipient of `planned`, each `to` followed by its copies. */
export function envelopeRecipients(planned: readonly PlannedRecipient[]): EnvelopeRecipient[] {
  return planned.flatMap((p) => [p.to, ...p.copies]);
}

/**
 * Drops the recipients not dropped yet whose address is in `suppressed` (spelled as given, as
 * `SuppressionStore.suppressedAmong` answers), then, when the sending domain cannot send
 * (`domainDrop`), all the others.
 */
export function applyListDrops(
  planned: readonly PlannedRecipient[],
  suppressed: ReadonlySet<string>,
  domainDrop: Drop | null,
): void {
  for (const recipient of envelopeRecipients(planned)) {
    if (recipient.drop !== null) continue;
    if (suppressed.has(recipient.email)) {
      const who = recipient.kind === 'to' ? 'recipient' : `${recipient.kind} address`;
      recipient.drop = { reason: 'SUPPRESSED', detail: `the ${who} is on the suppression list of this sub-account` };
    } else {
      recipient.drop = domainDrop;
    }
  }
}
