import { createPublicKey, generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import type { DkimKeyBits } from './config.js';

const generateKeyPairAsync = promisify(generateKeyPair);

/** A DKIM key pair as mailplane stores it. */
export interface DkimKeyPair {
  /** base64 of the SubjectPublicKeyInfo DER: the `p=` value of the DKIM TXT record. */
  publicKey: string;
  /** PKCS#8 PEM; secret: encrypt it before it is stored, never return it. */
  privateKeyPem: string;
}

/**
 * Generates an RSA DKIM key pair of `bits` (`domains.dkimKeyBits`). Uses the asynchronous generator:
 * the work (for 2048 bits, tens to hundreds of milliseconds of CPU; for 1024, a few) runs on libuv's
 * thread pool instead of stalling every other request.
 */
export async function generateDkimKeyPair(bits: DkimKeyBits): Promise<DkimKeyPair> {
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
    modulusLength: bits,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKey: publicKey.toString('base64'), privateKeyPem: privateKey };
}

/** The `p=` value (base64 SPKI DER) that belongs to a PEM private key. */
export function dkimPublicKeyOf(privateKeyPem: string): string {
  return createPublicKey(privateKeyPem).export({ type: 'spki', format: 'der' }).toString('base64');
}
