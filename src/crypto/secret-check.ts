import { timingSafeEqual } from 'node:crypto';
import { SecretMismatchError } from '../errors.js';
import type { MailplaneStore } from '../store/index.js';
import type { SecretBox } from './secrets.js';

/** The setting that holds the secret's check value ({@link SecretBox.checkValue}). */
export const SECRET_CHECK_SETTING = 'secret-check';

/**
 * Compares the database's secret check value with this instance's, writing it when the database
 * has none yet (its first start, or a database set up before check values existed). Throws
 * {@link SecretMismatchError} when they differ. A store without `settings` is not checked.
 */
export async function verifySecret(store: MailplaneStore, secrets: SecretBox): Promise<void> {
  if (!store.settings) return;
  const stored = await store.settings.claim(SECRET_CHECK_SETTING, secrets.checkValue);
  const a = Buffer.from(stored);
  const b = Buffer.from(secrets.checkValue);
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw new SecretMismatchError();
}
