import { describe, expect, it } from 'vitest';
import {
  parseDnsServer,
  parseDnsServers,
  providerFromNameServers,
  registrationDateFromRdap,
} from '../../src/dns/index.js';

describe('providerFromNameServers', () => {
  it.each([
    [['kim.ns.cloudflare.com', 'rob.ns.cloudflare.com.'], 'Cloudflare'],
    [['ns-1234.awsdns-12.org', 'ns-567.awsdns-34.co.uk'], 'Amazon Route 53'],
    [['ns01.domaincontrol.com'], 'GoDaddy'],
    [['ns-cloud-a1.googledomains.com'], 'Google Cloud DNS'],
    [['ns1.googledomains.com'], 'Squarespace (Google Domains)'],
    [['ns1-05.azure-dns.com', 'ns2-05.azure-dns.net'], 'Microsoft Azure DNS'],
    [['dns1.registrar-servers.com'], 'Namecheap'],
    [['ns1.digitalocean.com'], 'DigitalOcean'],
    [['hydrogen.ns.hetzner.com', 'helium.ns.hetzner.de'], 'Hetzner'],
    [['dns10.ovh.net'], 'OVHcloud'],
    [['ns-12-a.gandi.net'], 'Gandi'],
    [['ns1.linode.com'], 'Linode (Akamai)'],
    [['dns1.p01.nsone.net'], 'NS1'],
    [['ns1.dnsimple.com'], 'DNSimple'],
    [['curitiba.ns.porkbun.com'], 'Porkbun'],
    [['ns1.hover.com'], 'Hover'],
    [['ns0.wixdns.net'], 'Wix'],
    [['ns1040.ui-dns.com', 'ns1106.ui-dns.de'], 'IONOS'],
    [['NS1.EXAMPLE-HOSTING.TEST'], ''],
    [[], ''],
  ])('%j -> %j', (servers, provider) => {
    expect(providerFromNameServers(servers)).toBe(provider);
  });

  it('picks the provider serving most of the name servers', () => {
    expect(providerFromNameServers(['a.ns.cloudflare.com', 'ns1.digitalocean.com', 'ns2.digitalocean.com'])).toBe(
      'DigitalOcean',
    );
  });

  it('does not match a look-alike host', () => {
    expect(providerFromNameServers(['ns.cloudflare.com.evil.test', 'domaincontrol.com.evil.test'])).toBe('');
  });
});

describe('parseDnsServers', () => {
  it('reads MAILPLANE_DNS_SERVERS forms', () => {
    expect(parseDnsServers('127.0.0.1:5300, 10.0.0.2 [::1]:5353 ::1')).toEqual([
      { host: '127.0.0.1', port: 5300 },
      { host: '10.0.0.2', port: 53 },
      { host: '::1', port: 5353 },
      { host: '::1', port: 53 },
    ]);
    expect(parseDnsServers('')).toEqual([]);
  });

  it('refuses what is not an address', () => {
    expect(parseDnsServer('dns.example.com')).toBeNull();
    expect(parseDnsServer('127.0.0.1:0')).toBeNull();
    expect(parseDnsServer('127.0.0.1:70000')).toBeNull();
    expect(() => parseDnsServers('127.0.0.1:5300,nonsense')).toThrow(/nonsense/);
  });
});

describe('registrationDateFromRdap', () => {
  it('reads the registration event as a UTC date', () => {
    expect(
      registrationDateFromRdap({
        events: [
          { eventAction: 'expiration', eventDate: '2030-01-01T00:00:00Z' },
          { eventAction: 'registration', eventDate: '1995-08-14T04:00:00Z' },
        ],
      }),
    ).toBe('1995-08-14');
    expect(
      registrationDateFromRdap({ events: [{ eventAction: 'Registration', eventDate: '2001-02-03T23:30:00-05:00' }] }),
    ).toBe('2001-02-04');
  });

  it('gives empty for anything else', () => {
    for (const body of [
      null,
      'x',
      42,
      {},
      { events: 'no' },
      { events: [null, 1, { eventAction: 'registration' }] },
      { events: [{ eventAction: 'registration', eventDate: 'yesterday' }] },
    ]) {
      expect(registrationDateFromRdap(body)).toBe('');
    }
  });
});
