import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  randomInt,
  timingSafeEqual,
} from 'node:crypto';

/**
 * Everything mailplane does with secrets (API keys, SMTP passwords, DKIM private keys, webhook
 * signing secrets): generate them from the CSPRNG, encrypt them at rest, and find them again by a
 * keyed hash so the plaintext never sits in the database and lookups stay a single indexed query.
 */
export interface SecretBox {
  /** AES-256-GCM encryption; the result is a self-describing string (`v1.<iv>.<tag>.<data>`). */
  encrypt(plaintext: string): string;
  /** Reverses {@link SecretBox.encrypt}; throws if the text was tampered with or another secret made it. */
  decrypt(sealed: string): string;
  /** HMAC-SHA256 of the value under the instance secret, base64url: the lookup key of a credential. */
  lookupHash(value: string): string;
  /** Compares a presented credential with a stored lookup hash in constant time. */
  matches(presented: string, storedHash: string): boolean;
  /** HMAC-SHA256 signature (base64url) of `data` for links mailplane hands out (tracking, unsubscribe). */
  sign(data: string): string;
  /** Checks a signature made by {@link SecretBox.sign}, in constant time. */
  verify(data: string, signature: string): boolean;
  /**
   * A value that identifies the secret without revealing it: an HMAC of a fixed label under a key
   * of its own derived from the secret. Stored in the database by the first node, compared by the
   * next ones, so a node started with another secret is refused (see `SecretMismatchError`).
   */
  readonly checkValue: string;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * A random token of `length` base62 characters (about 5.95 bits each), with an optional prefix so
 * leaked keys are recognisable by secret scanners.
 */
export function randomToken(length: number, prefix = ''): string {
  let out = prefix;
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

/** Minimum length of the instance secret given to {@link createSecretBox}. */
export const MIN_SECRET_LENGTH = 32;

/**
 * Builds the {@link SecretBox} of one mailplane instance. Encryption and hashing use separate keys
 * derived from `secret` with HKDF, so neither can be used to attack the other.
 *
 * @example
 * const box = createSecretBox(process.env.MAILPLANE_SECRET!);
 * const sealed = box.encrypt('hunter2');
 */
export function createSecretBox(secret: string): SecretBox {
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new Error(
      `the mailplane secret must be at least ${MIN_SECRET_LENGTH} characters (this one has ${secret.length})`,
    );
  }
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', secret, 'mailplane', info, 32));
  const encryptionKey = derive('encryption-v1');
  const hashKey = derive('lookup-hash-v1');
  const signingKey = derive('link-signing-v1');
  const checkValue = `v1.${createHmac('sha256', derive('secret-check-v1')).update('mailplane instance secret').digest('base64url')}`;
  const sign = (data: string) => createHmac('sha256', signingKey).update(data).digest('base64url');

  const lookupHash = (value: string) => createHmac('sha256', hashKey).update(value).digest('base64url');

  return {
    encrypt(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv);
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return ['v1', iv.toString('base64url'), tag.toString('base64url'), data.toString('base64url')].join('.');
    },
    decrypt(sealed) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== 'v1' || iv === undefined || tag === undefined || data === undefined) {
        throw new Error('not a sealed mailplane secret');
      }
      const decipher = createDecipheriv('aes-256-gcm', encryptionKey, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
    lookupHash,
    sign,
    checkValue,
    verify(data, signature) {
      const a = Buffer.from(sign(data));
      const b = Buffer.from(signature);
      return a.length === b.length && timingSafeEqual(a, b);
    },
    matches(presented, storedHash) {
      const a = Buffer.from(lookupHash(presented));
      const b = Buffer.from(storedHash);
      return a.length === b.length && timingSafeEqual(a, b);
    },
  };
}
