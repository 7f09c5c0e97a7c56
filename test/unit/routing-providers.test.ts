import { describe, expect, it } from 'vitest';
import { createProviderClassifier, mxHostsFrom } from '../../src/routing/classifier.js';
import { classifyByDomain, classifyByMx, MailboxProvider as P } from '../../src/routing/providers.js';
import { manualClock } from '../../src/model/time.js';

describe('classifyByDomain', () => {
  it('knows the consumer domains of every provider, in any case and with a trailing dot', () => {
    const table: Array<[string, number]> = [
      ['gmail.com', P.Gmail],
      ['GoogleMail.com', P.Gmail],
      ['yahoo.com', P.Yahoo],
      ['yahoo.co.uk', P.Yahoo],
      ['yahoo.co.jp', P.Yahoo],
      ['ymail.com', P.Yahoo],
      ['rocketmail.com', P.Yahoo],
      ['aol.com', P.Aol],
      ['aol.de', P.Aol],
      ['aim.com', P.Aol],
      ['verizon.net', P.Aol],
      ['outlook.com', P.Microsoft],
      ['hotmail.com', P.Microsoft],
      ['hotmail.co.uk', P.Microsoft],
      ['hotmail.fr', P.Microsoft],
      ['live.com', P.Microsoft],
      ['live.nl', P.Microsoft],
      ['msn.com', P.Microsoft],
      ['outlook.com.br', P.Microsoft],
      ['comcast.net', P.Comcast],
      ['yandex.ru', P.Yandex],
      ['yandex.com', P.Yandex],
      ['yandex.com.tr', P.Yandex],
      ['ya.ru', P.Yandex],
      ['gmx.de', P.Gmx],
      ['gmx.net', P.Gmx],
      ['gmx.com', P.Gmx],
      ['web.de', P.Gmx],
      ['mail.ru', P.MailRu],
      ['bk.ru', P.MailRu],
      ['inbox.ru', P.MailRu],
      ['list.ru', P.MailRu],
      ['icloud.com', P.Icloud],
      ['me.com', P.Icloud],
      ['mac.com', P.Icloud],
      ['zoho.com', P.Zoho],
      ['zohomail.com', P.Zoho],
      ['zoho.eu', P.Zoho],
      ['qq.com', P.Qq],
      ['foxmail.com', P.Qq],
      ['vip.qq.com', P.Qq],
      ['GMAIL.COM.', P.Gmail],
    ];
    for (const [domain, provider] of table) expect(classifyByDomain(domain), domain).toBe(provider);
  });

  it('leaves custom domains, look-alikes and sub-domains to the MX lookup', () => {
    for (const domain of [
      'example.com',
      'gmail.example.com',
      'mx.gmail.com',
      'notgmail.com',
      'yahoo.example.org',
      'live',
      'hotmail',
      '',
      'mail.ru.example.com',
      'my-yahoo.com',
    ]) {
      expect(classifyByDomain(domain), domain).toBeNull();
    }
  });
});

describe('classifyByMx', () => {
  it('recognises the hosted platforms by their MX hosts', () => {
    const table: Array<[string[], number]> = [
      [['aspmx.l.google.com', 'alt1.aspmx.l.google.com'], P.Gmail],
      [['smtp.google.com.'], P.Gmail],
      [['acme-com.mail.protection.outlook.com'], P.Microsoft],
      [['hotmail-com.olc.protection.outlook.com'], P.Microsoft],
      [['mta5.am0.yahoodns.net'], P.Yahoo],
      [['mx-aol.mail.gm0.yahoodns.net'], P.Aol],
      [['mx1a1.comcast.net'], P.Comcast],
      [['mx.yandex.net'], P.Yandex],
      [['mx00.gmx.net'], P.Gmx],
      [['emx.mail.ru'], P.MailRu],
      [['mx01.mail.icloud.com'], P.Icloud],
      [['mx.zoho.eu', 'mx2.zoho.eu'], P.Zoho],
      [['mx.zoho.com.au'], P.Zoho],
      [['mxbiz1.qq.com'], P.Qq],
      [['MX.Example.net', 'ASPMX.L.GOOGLE.COM'], P.Gmail],
    ];
    for (const [hosts, provider] of table) expect(classifyByMx(hosts), hosts.join()).toBe(provider);
  });

  it('answers null for hosts of no known provider, and for look-alike names', () => {
    expect(classifyByMx([])).toBeNull();
    expect(
      classifyByMx(['mail.example.com', 'google.com.evil.example', 'notgoogle.com', 'outlook.com-mx.example']),
    ).toBeNull();
  });

  it('lets the most preferred matching host decide', () => {
    expect(classifyByMx(['acme.mail.protection.outlook.com', 'aspmx.l.google.com'])).toBe(P.Microsoft);
  });
});

describe('createProviderClassifier', () => {
  const mxTable: Record<string, string[]> = {
    'acme.example': ['aspmx.l.google.com'],
    'corp.example': ['corp-example.mail.protection.outlook.com'],
    'self.example': ['mail.self.example'],
  };

  function counting() {
    const calls: string[] = [];
    const lookupMx = async (domain: string) => {
      calls.push(domain);
      if (domain === 'broken.example') throw new Error('SERVFAIL');
      return mxTable[domain] ?? [];
    };
    return { calls, lookupMx };
  }

  it('answers consumer domains without a lookup and custom domains by MX, once per domain', async () => {
    const { calls, lookupMx } = counting();
    const classifier = createProviderClassifier({ lookupMx });
    expect(await classifier.classify('someone@Gmail.com')).toBe(P.Gmail);
    expect(await classifier.classify('ceo@acme.example')).toBe(P.Gmail);
    expect(await classifier.classify('cfo@ACME.example')).toBe(P.Gmail);
    expect(await classifier.classify('it@corp.example')).toBe(P.Microsoft);
    expect(await classifier.classify('me@self.example')).toBe(P.Default);
    expect(await classifier.classify('me@self.example')).toBe(P.Default);
    expect(calls).toEqual(['acme.example', 'corp.example', 'self.example']);
    expect(classifier.classifyCached('x@acme.example')).toBe(P.Gmail);
    expect(classifier.classifyCached('x@unseen.example')).toBeUndefined();
  });

  it('shares one lookup among concurrent callers', async () => {
    const { calls, lookupMx } = counting();
    const classifier = createProviderClassifier({ lookupMx });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => classifier.classify(`user${i}@corp.example`)),
    );
    expect(new Set(answers)).toEqual(new Set([P.Microsoft]));
    expect(calls).toEqual(['corp.example']);
  });

  it('expires entries after ttlMs, retries failures after failureTtlMs, and stays within cacheSize', async () => {
    const clock = manualClock(Date.UTC(2026, 0, 1));
    const { calls, lookupMx } = counting();
    const classifier = createProviderClassifier({ lookupMx, clock, ttlMs: 60_000, failureTtlMs: 5_000, cacheSize: 2 });
    expect(await classifier.classify('a@broken.example')).toBe(P.Default);
    expect(await classifier.classify('a@broken.example')).toBe(P.Default);
    clock.advance(5_001);
    await classifier.classify('a@broken.example');
    expect(calls.filter((d) => d === 'broken.example')).toHaveLength(2);

    await classifier.classify('a@acme.example');
    clock.advance(59_000);
    await classifier.classify('a@acme.example');
    expect(calls.filter((d) => d === 'acme.example')).toHaveLength(1);
    clock.advance(2_000);
    await classifier.classify('a@acme.example');
    expect(calls.filter((d) => d === 'acme.example')).toHaveLength(2);

    await classifier.classify('a@corp.example');
    await classifier.classify('a@self.example');
    expect(classifier.cacheEntries).toBeLessThanOrEqual(2);
  });

  it('adapts a DNS resolver: no MX is no hosts, a failure is retried later', async () => {
    const resolver = {
      resolveMx: async (name: string) =>
        name === 'acme.example'
          ? {
              ok: true as const,
              name,
              chain: [],
              ttl: 60,
              records: [
                { exchange: 'backup.example.net', preference: 20 },
                { exchange: 'aspmx.l.google.com', preference: 1 },
              ],
            }
          : {
              ok: false as const,
              name,
              chain: [],
              ttl: 60,
              detail: '',
              reason: name === 'none.example' ? ('nxdomain' as const) : ('timeout' as const),
            },
    };
    const lookup = mxHostsFrom(resolver);
    expect(await lookup('acme.example')).toEqual(['aspmx.l.google.com', 'backup.example.net']);
    expect(await lookup('none.example')).toEqual([]);
    await expect(lookup('slow.example')).rejects.toThrow(/timeout/);
  });
});
