import { describe, expect, it } from 'vitest';
import { checkWebhookTarget, classifyAddress } from '../../src/webhook/index.js';

describe('checkWebhookTarget', () => {
  it('allows public addresses and host names', () => {
    expect(checkWebhookTarget('https://8.8.8.8/hook')).toEqual({ allowed: true, category: 'public', host: '8.8.8.8' });
    expect(checkWebhookTarget('https://[2606:4700::1111]/')).toEqual({
      allowed: true,
      category: 'public',
      host: '2606:4700::1111',
    });
    expect(checkWebhookTarget('https://app.hooli.com/email/webhook')).toEqual({
      allowed: true,
      category: 'hostname',
      host: 'app.hooli.com',
    });
    // just outside the private ranges
    for (const ip of ['172.15.255.255', '172.32.0.1', '11.0.0.1', '192.169.0.1', '100.128.0.1', '169.255.0.1']) {
      expect(checkWebhookTarget(`http://${ip}/`).category, ip).toBe('public');
    }
  });

  it('refuses loopback, private, link-local and unspecified targets by default', () => {
    const cases: Array<[string, string]> = [
      ['http://127.0.0.1:8080/x', 'loopback'],
      ['http://127.255.255.254/', 'loopback'],
      ['http://localhost/', 'loopback'],
      ['http://LOCALHOST./', 'loopback'],
      ['http://api.localhost/', 'loopback'],
      ['http://[::1]/', 'loopback'],
      ['http://10.0.0.1/', 'private'],
      ['http://10.255.255.255/', 'private'],
      ['http://172.16.0.1/', 'private'],
      ['http://172.31.255.255/', 'private'],
      ['http://192.168.1.1/', 'private'],
      ['http://100.64.0.1/', 'private'],
      ['http://[fc00::1]/', 'private'],
      ['http://[fdff:ffff::1]/', 'private'],
      ['http://169.254.169.254/latest/meta-data', 'link-local'],
      ['http://[fe80::1]/', 'link-local'],
      ['http://[febf::1]/', 'link-local'],
      ['http://0.0.0.0/', 'unspecified'],
      ['http://[::]/', 'unspecified'],
      ['http://224.0.0.1/', 'reserved'],
      ['http://255.255.255.255/', 'reserved'],
    ];
    for (const [url, category] of cases) {
      expect(checkWebhookTarget(url), url).toMatchObject({ allowed: false, category });
      expect(checkWebhookTarget(url, { allowPrivateTargets: true }), url).toMatchObject({ allowed: true, category });
    }
  });

  it('sees through alternative spellings of loopback and private addresses', () => {
    for (const url of [
      'http://2130706433/', // 127.0.0.1 as one number
      'http://0x7f.1/',
      'http://0177.0.0.1/',
      'http://127.1/',
      'http://[::ffff:127.0.0.1]/', // IPv4-mapped
      'http://[::ffff:7f00:1]/',
      'http://[64:ff9b::7f00:1]/', // NAT64
      'http://[2002:7f00:1::]/', // 6to4
    ]) {
      expect(checkWebhookTarget(url), url).toMatchObject({ allowed: false, category: 'loopback' });
    }
    expect(checkWebhookTarget('http://[::ffff:10.1.2.3]/')).toMatchObject({ allowed: false, category: 'private' });
    expect(checkWebhookTarget('http://[::ffff:169.254.169.254]/')).toMatchObject({
      allowed: false,
      category: 'link-local',
    });
  });

  it('refuses what is not an http(s) URL with a host, even with allowPrivateTargets', () => {
    for (const url of ['ftp://example.com/', 'javascript:alert(1)', 'not a url', 'file:///etc/passwd']) {
      expect(checkWebhookTarget(url, { allowPrivateTargets: true }), url).toEqual({
        allowed: false,
        category: 'invalid',
        host: '',
      });
    }
  });

  it('accepts a URL object', () => {
    expect(checkWebhookTarget(new URL('http://10.0.0.5/'))).toMatchObject({ allowed: false, category: 'private' });
  });
});

describe('classifyAddress', () => {
  it('classifies resolved addresses as the delivery worker will see them', () => {
    expect(classifyAddress('127.0.0.1')).toBe('loopback');
    expect(classifyAddress('::1')).toBe('loopback');
    expect(classifyAddress('[::1]')).toBe('loopback');
    expect(classifyAddress('fe80::1%eth0')).toBe('link-local');
    expect(classifyAddress('93.184.216.34')).toBe('public');
    expect(classifyAddress('2001:db8::1')).toBe('reserved');
    expect(classifyAddress('ff02::1')).toBe('reserved');
    expect(classifyAddress('example.com')).toBe('invalid');
    expect(classifyAddress('256.1.1.1')).toBe('invalid');
  });
});
