import { createPublicKey, generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';

const generateKeyPairAsync = promisify(generateKeyPair);

/** RSA modulus size of generated DKIM keys: 2048 bits, the size RFC 8301 recommends. */
export const DKIM_KEY_BITS = 2048;

/** A DKIM key pair as mailplane stores it. */
export interface DkimKeyPair {
  /** base64 of the SubjectPublicKeyInfo DER: the `p=` value of the DKIM TXT record. */
  publicKey: string;
  /** PKCS#8 PEM; secret: encrypt it before it is stored, never return it. */
  privateKeyPem: string;
}

/**
 * Generates an RSA-2048 DKIM key pair. Uses the asynchronous generator: the work (tens to hundreds
 * of milliseconds of CPU) runs on libuv's thread pool instead of stalling every other request.
 */
export async function generateDkimKeyPair(): Promise<DkimKeyPair> {
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
    modulusLength: DKIM_KEY_BITS,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKey: publicKey.toString('base64'), privateKeyPem: privateKey };
}

/** The `p=` value (base64 SPKI DER) that belongs to a PEM private key. */
export function dkimPublicKeyOf(privateKeyPem: string): string {
  return createPublicKey(privateKeyPem).export({ type: 'spki', format: 'der' }).toString('base64');
}
