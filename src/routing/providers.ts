/**
 * Mailbox providers of the Email Provider strategy (routing strategy 1), and the tables that say
 * which provider receives mail for a recipient: by the recipient's domain for the providers'
 * consumer domains, and by the domain's MX hosts for custom domains hosted by a provider
 * (Google Workspace, Microsoft 365, Zoho Mail, ...). Pure: the DNS lookup lives in classifier.ts.
 */

/** Mailbox-provider ids, as in the reference document's table (11 is the default provider). */
export const MailboxProvider = {
  Gmail: 0,
  Yahoo: 1,
  Aol: 2,
  Microsoft: 3,
  Comcast: 4,
  Yandex: 5,
  Gmx: 6,
  MailRu: 7,
  Icloud: 8,
  Zoho: 9,
  Qq: 10,
  Default: 11,
} as const;
/** 0 Gmail, 1 Yahoo, 2 AOL, 3 Microsoft, 4 Comcast, 5 Yandex, 6 GMX, 7 Mail.ru, 8 iCloud, 9 Zoho, 10 QQ, 11 default. */
export type MailboxProvider = (typeof MailboxProvider)[keyof typeof MailboxProvider];

/** Number of mailbox-provider ids (0 to 11): the length of per-provider arrays. */
export const MAILBOX_PROVIDER_COUNT = 12;

/** Display names by id, for logs and docs. */
export const MAILBOX_PROVIDER_NAMES: readonly string[] = [
  'Gmail',
  'Yahoo',
  'AOL',
  'Microsoft',
  'Comcast',
  'Yandex',
  'GMX',
  'Mail.ru',
  'iCloud',
  'Zoho',
  'QQ',
  'default',
];

const P = MailboxProvider;

/** Consumer domains matched exactly. */
const EXACT_DOMAINS: ReadonlyMap<string, MailboxProvider> = new Map<string, MailboxProvider>([
  ['gmail.com', P.Gmail],
  ['googlemail.com', P.Gmail],
  ['ymail.com', P.Yahoo],
  ['rocketmail.com', P.Yahoo],
  // Verizon's consumer mailboxes moved to AOL in 2017; aim.com is AOL's own.
  ['aim.com', P.Aol],
  ['verizon.net', P.Aol],
  ['msn.com', P.Microsoft],
  ['passport.com', P.Microsoft],
  ['windowslive.com', P.Microsoft],
  ['comcast.net', P.Comcast],
  ['ya.ru', P.Yandex],
  ['narod.ru', P.Yandex],
  // WEB.DE is run by the same company on the same platform as GMX.
  ['web.de', P.Gmx],
  ['mail.ru', P.MailRu],
  ['bk.ru', P.MailRu],
  ['inbox.ru', P.MailRu],
  ['list.ru', P.MailRu],
  ['internet.ru', P.MailRu],
  ['icloud.com', P.Icloud],
  ['me.com', P.Icloud],
  ['mac.com', P.Icloud],
  ['zohomail.com', P.Zoho],
  ['qq.com', P.Qq],
  ['vip.qq.com', P.Qq],
  ['foxmail.com', P.Qq],
]);

/**
 * Brands whose consumer domains exist under many country suffixes (`yahoo.co.uk`, `hotmail.fr`,
 * `gmx.de`, `yandex.com.tr`): matched as `<brand>.<suffix>` where the suffix is a top-level
 * domain or a two-part country suffix.
 */
const BRAND_LABELS: ReadonlyMap<string, MailboxProvider> = new Map<string, MailboxProvider>([
  ['yahoo', P.Yahoo],
  ['aol', P.Aol],
  ['outlook', P.Microsoft],
  ['hotmail', P.Microsoft],
  ['live', P.Microsoft],
  ['yandex', P.Yandex],
  ['gmx', P.Gmx],
  ['zoho', P.Zoho],
]);
const COUNTRY_SUFFIX = /^[a-z]{2,3}(\.[a-z]{2})?$/;

/** Lower-cases and drops one trailing dot, so `Gmail.COM.` and `gmail.com` compare equal. */
export function normalizeDomain(domain: string): string {
  const lower = domain.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** The domain of an address (after the last `@`), normalised; the whole text when there is no `@`. */
export function domainOf(addressOrDomain: string): string {
  return normalizeDomain(addressOrDomain.slice(addressOrDomain.lastIndexOf('@') + 1));
}

/**
 * The provider whose consumer domain `domain` is, or `null` when it is none of them (a custom
 * domain: ask {@link classifyByMx}). Sub-domains do not match (`mx.gmail.com` is not a mailbox domain).
 *
 * @example
 * classifyByDomain('Hotmail.co.uk'); // 3 (Microsoft)
 * classifyByDomain('example.com');   // null
 */
export function classifyByDomain(domain: string): MailboxProvider | null {
  const name = normalizeDomain(domain);
  const exact = EXACT_DOMAINS.get(name);
  if (exact !== undefined) return exact;
  const dot = name.indexOf('.');
  if (dot <= 0) return null;
  const brand = BRAND_LABELS.get(name.slice(0, dot));
  return brand !== undefined && COUNTRY_SUFFIX.test(name.slice(dot + 1)) ? brand : null;
}

/**
 * The provider of an address by its domain alone, {@link MailboxProvider.Default} when it is no
 * consumer domain: how counters and metrics file a recipient where no MX lookup can be made (at
 * accept, and so at every later event of the message, to land in the same bucket).
 */
export function providerOfAddress(address: string): MailboxProvider {
  return classifyByDomain(domainOf(address)) ?? P.Default;
}

/**
 * MX host suffixes of the providers' mail platforms, matched against a host or its parent domains.
 * Order matters: AOL's MX hosts live under Yahoo's `yahoodns.net`, so the AOL pattern comes first.
 */
const MX_RULES: ReadonlyArray<{ provider: MailboxProvider; test: (host: string) => boolean }> = [
  { provider: P.Aol, test: (h) => /^mx-aol\.mail\.[a-z0-9]+\.yahoodns\.net$/.test(h) || under(h, 'aol.com') },
  // aspmx.l.google.com (Workspace), smtp.google.com (Workspace since 2023), gmail-smtp-in.l.google.com.
  { provider: P.Gmail, test: (h) => under(h, 'google.com') || under(h, 'googlemail.com') },
  // <tenant>.mail.protection.outlook.com (Microsoft 365), hotmail-com.olc.protection.outlook.com.
  { provider: P.Microsoft, test: (h) => under(h, 'outlook.com') || under(h, 'hotmail.com') },
  { provider: P.Yahoo, test: (h) => under(h, 'yahoodns.net') || under(h, 'yahoo.com') },
  { provider: P.Comcast, test: (h) => under(h, 'comcast.net') },
  { provider: P.Yandex, test: (h) => under(h, 'yandex.net') || under(h, 'yandex.ru') },
  {
    provider: P.Gmx,
    test: (h) => under(h, 'gmx.net') || under(h, 'gmx.com') || under(h, 'gmx.de') || under(h, 'web.de'),
  },
  { provider: P.MailRu, test: (h) => under(h, 'mail.ru') },
  { provider: P.Icloud, test: (h) => under(h, 'icloud.com') || under(h, 'me.com') },
  // mx.zoho.com, mx.zoho.eu, mx.zoho.in, mx.zoho.com.au, mx.zohomail.com ...
  { provider: P.Zoho, test: (h) => /(^|\.)zoho(mail)?\.[a-z]{2,3}(\.[a-z]{2})?$/.test(h) },
  // mx1.qq.com (QQ Mail), mxbiz1.qq.com (Tencent Exmail for custom domains).
  { provider: P.Qq, test: (h) => under(h, 'qq.com') },
];

function under(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/**
 * The provider that runs the mail exchangers `mxHosts` (most preferred first), or `null` when
 * none belongs to a known provider. The first host that matches decides, so a domain whose
 * primary MX is Google and whose backup is elsewhere is Gmail.
 *
 * @example
 * classifyByMx(['acme-com.mail.protection.outlook.com']); // 3 (Microsoft 365)
 */
export function classifyByMx(mxHosts: readonly string[]): MailboxProvider | null {
  for (const raw of mxHosts) {
    const host = normalizeDomain(raw);
    for (const rule of MX_RULES) if (rule.test(host)) return rule.provider;
  }
  return null;
}
