import type { SecretBox } from '../crypto/secrets.js';
import type { SubAccountView } from './sub-accounts.js';

/**
 * The `SubAccount` of the reference document. Keys and passwords are decrypted for the account
 * that owns them; they are stored only as ciphertext and a keyed hash.
 */
export function subAccountToWire(view: SubAccountView, secrets: SecretBox) {
  const { subAccount: s, smtpAuths } = view;
  return {
    id: s.id,
    accountId: s.accountId,
    name: s.name,
    companyName: s.companyName,
    apiKey: secrets.decrypt(s.apiKeySealed),
    type: s.type,
    isPlus: s.isPlus,
    labels: [] as never[],
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
    handlers: [] as string[],
    created: s.created,
    /** mailplane's addition: days its messages and events are kept; null = the instance's retention. */
    retentionDays: s.retentionDays,
  };
}
