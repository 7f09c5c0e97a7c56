import { clip, parseTagList } from './tag-list.js';

/** The policy parts of a DMARC record (RFC 7489 §6.3). */
export interface DmarcRecord {
  policy: 'none' | 'quarantine' | 'reject';
  subdomainPolicy?: 'none' | 'quarantine' | 'reject';
  percent: number;
  reportUris: string[];
}

/** A parsed DMARC record, or what is wrong with it. */
export type DmarcParseResult = { ok: true; record: DmarcRecord } | { ok: false; error: string };

const POLICIES: ReadonlySet<string> = new Set(['none', 'quarantine', 'reject']);

/** True when a TXT value claims to be a DMARC record: receivers consider only these (RFC 7489 §6.6.3). */
export function looksLikeDmarc(text: string): boolean {
  return /^v\s*=\s*DMARC1\s*(;|$)/i.test(text.trim());
}

function uriList(value: string, tag: string): string[] | string {
  const uris = value.split(',').map((uri) => uri.trim());
  // A size limit may follow the URI ("mailto:a@b.c!10m"); the address must be mailto:, the only
  // scheme receivers send aggregate and failure reports to.
  const bad = uris.find((uri) => !/^mailto:[^\s@,;]+@[^\s@,;!]+(![0-9]+[kmgt]?)?$/i.test(uri));
  return bad === undefined ? uris : `${tag}= holds "${clip(bad)}", which is not a mailto: address`;
}

/**
 * Parses a DMARC record. It must start with `v=DMARC1` and carry a valid `p=`; the other tags it
 * knows (`sp`, `pct`, `adkim`, `aspf`, `fo`, `ri`, `rua`, `ruf`) must have valid values, since a
 * typo there silently changes the policy the customer meant. Unknown tags are ignored, as the RFC says.
 */
export function parseDmarcRecord(text: string): DmarcParseResult {
  const parsed = parseTagList(text);
  if (!parsed.ok) return parsed;
  const tags = new Map([...parsed.tags].map(([name, value]) => [name.toLowerCase(), value]));
  if (parsed.order[0]?.toLowerCase() !== 'v' || tags.get('v')?.toUpperCase() !== 'DMARC1') {
    return { ok: false, error: 'it must start with v=DMARC1' };
  }
  const policy = tags.get('p')?.toLowerCase();
  if (policy === undefined)
    return { ok: false, error: 'it has no p= (policy) tag; add p=none, p=quarantine or p=reject' };
  if (!POLICIES.has(policy)) return { ok: false, error: `p=${clip(policy)} is not none, quarantine or reject` };
  const sp = tags.get('sp')?.toLowerCase();
  if (sp !== undefined && !POLICIES.has(sp))
    return { ok: false, error: `sp=${clip(sp)} is not none, quarantine or reject` };
  const pct = tags.get('pct');
  if (pct !== undefined && !(/^\d{1,3}$/.test(pct) && Number(pct) <= 100))
    return { ok: false, error: `pct=${clip(pct)} is not a whole number from 0 to 100` };
  for (const tag of ['adkim', 'aspf']) {
    const value = tags.get(tag);
    if (value !== undefined && !/^[rs]$/i.test(value))
      return { ok: false, error: `${tag}=${clip(value)} is not r or s` };
  }
  const fo = tags.get('fo');
  if (fo !== undefined && !/^[01ds](\s*:\s*[01ds])*$/i.test(fo))
    return { ok: false, error: `fo=${clip(fo)} is not a list of 0, 1, d and s` };
  const ri = tags.get('ri');
  if (ri !== undefined && !/^\d{1,10}$/.test(ri))
    return { ok: false, error: `ri=${clip(ri)} is not a number of seconds` };
  const reportUris: string[] = [];
  for (const tag of ['rua', 'ruf']) {
    const value = tags.get(tag);
    if (value === undefined) continue;
    const uris = uriList(value, tag);
    if (typeof uris === 'string') return { ok: false, error: uris };
    reportUris.push(...uris);
  }
  return {
    ok: true,
    record: {
      policy: policy as DmarcRecord['policy'],
      ...(sp === undefined ? {} : { subdomainPolicy: sp as DmarcRecord['policy'] }),
      percent: pct === undefined ? 100 : Number(pct),
      reportUris,
    },
  };
}
