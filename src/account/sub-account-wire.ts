import { z } from 'zod';
import type { SecretBox } from '../crypto/secrets.js';
import { epochNsSchema } from '../model/wire-schemas.js';
import type { SubAccountView } from './sub-accounts.js';

/** An SMTP credential of a sub-account, with its password (shown to the owning account). */
const smtpAuthWireSchema = z.object({
  id: z.int(),
  username: z.string(),
  password: z.string(),
  created: epochNsSchema,
  updated: epochNsSchema,
});

/** The wire shape of {@link subAccountToWire}: the reference's `SubAccount`. */
export const subAccountWireSchema = z.object({
  id: z.int(),
  accountId: z.int(),
  name: z.string(),
  companyName: z.string(),
  apiKey: z.string(),
  type: z.int(),
  isPlus: z.boolean(),
  labels: z.array(z.string()),
  smtpAuths: z.array(smtpAuthWireSchema),
  blocked: z.boolean(),
  blocked_at: epochNsSchema,
  block_reason: z.string(),
  hb_exempt: z.boolean(),
  generate_weekly_report: z.boolean(),
  handlers: z.array(z.string()),
  created: epochNsSchema,
  /** How many days its messages and events are kept (docs/activity.md); `null`: the instance's default. */
  retentionDays: z.int().min(1).max(3650).nullable(),
});

/**
 * The `SubAccount` of the reference document. Keys and passwords are decrypted for the account
 * that owns them; they are stored only as ciphertext and a keyed hash.
 */
export function subAccountToWire(view: SubAccountView, secrets: SecretBox): z.output<typeof subAccountWireSchema> {
  const { subAccount: s, smtpAuths } = view;
  return {
    id: s.id,
    accountId: s.accountId,
    name: s.name,
    companyName: s.companyName,
    apiKey: secrets.decrypt(s.apiKeySealed),
    type: s.type,
    isPlus: s.isPlus,
    labels: [],
    smtpAuths: smtpAuths.map((auth) => ({
      id: auth.id,
      username: auth.username,
      password: secrets.decrypt(auth.passwordSealed),
      created: auth.created,
      updated: auth.updated,
    })),
    blocked: s.blocked,
    blocked_at: s.blockedAt,
    block_reason: s.blockReason,
    hb_exempt: s.hbExempt,
    generate_weekly_report: s.generateWeeklyReport,
    handlers: [],
    created: s.created,
    /** mailplane's addition: days its messages and events are kept; null = the instance's retention. */
    retentionDays: s.retentionDays,
  };
}
