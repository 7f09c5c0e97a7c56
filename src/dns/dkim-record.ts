import { parseTagList } from './tag-list.js';

/** The parts of a DKIM key record (RFC 6376 §3.6.1) a verifier compares. */
export interface DkimKeyRecord {
  /** `k=`, lower-case; `rsa` when absent (the RFC's default). */
  keyType: string;
  /** `p=` with all whitespace removed; empty means the key was revoked. */
  publicKey: string;
}

/** A parsed DKIM record, or why it is not one. `notDkim` means it does not even look like one. */
export type DkimParseResult = { ok: true; record: DkimKeyRecord } | { ok: false; notDkim: boolean; error: string };

/**
 * Parses a DKIM key record. `v=`, when present, must be the first tag and `DKIM1`; `p=` is
 * required. Whitespace inside the base64 key is ignored: it is folding, not data.
 */
export function parseDkimRecord(text: string): DkimParseResult {
  const parsed = parseTagList(text);
  if (!parsed.ok) return { ok: false, notDkim: !/\bp\s*=/.test(text), error: parsed.error };
  const { tags, order } = parsed;
  const version = tags.get('v');
  if (version !== undefined) {
    if (order[0] !== 'v') return { ok: false, notDkim: false, error: 'v=DKIM1 must be the first tag' };
    if (version !== 'DKIM1') return { ok: false, notDkim: true, error: `v=${version} is not v=DKIM1` };
  }
  const publicKey = tags.get('p');
  if (publicKey === undefined)
    return { ok: false, notDkim: version === undefined, error: 'it has no p= (public key) tag' };
  const key = publicKey.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(key)) return { ok: false, notDkim: false, error: 'the p= value is not base64' };
  return { ok: true, record: { keyType: (tags.get('k') ?? 'rsa').toLowerCase(), publicKey: key } };
}

/**
 * Reads the key mailplane publishes for a domain: either a complete record (`v=DKIM1; k=rsa; p=...`)
 * or the bare base64 key. Returns `null` when it is neither.
 */
export function expectedDkimKey(textValue: string): DkimKeyRecord | null {
  const parsed = parseDkimRecord(textValue);
  if (parsed.ok && parsed.record.publicKey !== '') return parsed.record;
  const bare = textValue.replace(/\s+/g, '');
  return /^[A-Za-z0-9+/]+={0,2}$/.test(bare) ? { keyType: 'rsa', publicKey: bare } : null;
}
