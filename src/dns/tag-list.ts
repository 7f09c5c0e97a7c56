/** A parsed `tag=value; tag=value` list (DKIM RFC 6376 §3.2, DMARC RFC 7489 §6.4). */
export type TagListResult = { ok: true; tags: Map<string, string>; order: string[] } | { ok: false; error: string };

/**
 * Parses a tag-value list. Whitespace around tags, values and separators is ignored and a
 * trailing `;` is allowed, as both RFCs permit; a repeated tag makes the list invalid.
 * Tag names are case-sensitive in DKIM; callers that want otherwise lower-case them.
 */
export function parseTagList(text: string): TagListResult {
  const tags = new Map<string, string>();
  const order: string[] = [];
  for (const part of text.split(';')) {
    const spec = part.trim();
    if (spec === '') continue;
    const equals = spec.indexOf('=');
    if (equals < 0) return { ok: false, error: `"${clip(spec)}" is not a tag=value pair` };
    const name = spec.slice(0, equals).trim();
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name)) return { ok: false, error: `"${clip(name)}" is not a valid tag name` };
    if (tags.has(name)) return { ok: false, error: `the tag ${name}= appears twice` };
    tags.set(name, spec.slice(equals + 1).trim());
    order.push(name);
  }
  return { ok: true, tags, order };
}

/** Shortens text quoted back into a failure reason so a huge record cannot make a huge reason. */
export function clip(text: string, max = 40): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * Undoes the usual ways a TXT value gets mangled on its way into a DNS provider's form: quotes
 * pasted literally (`"v=DKIM1; p=..."`) and a long value pasted in zone-file form as several
 * quoted strings (`"abc" "def"`), which both mean the joined text between the quotes.
 */
export function cleanTxtValue(value: string): string {
  const trimmed = value.trim();
  if (trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"')) {
    return trimmed.slice(1, -1).replace(/"\s*"/g, '');
  }
  return trimmed;
}
