import { describe, expect, it } from 'vitest';
import { mailProxyOf, parseUserAgent } from '../../src/tracking/user-agent.js';

describe('real User-Agents of readers and mail clients', () => {
  it.each([
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      'Chrome',
      '131',
      '0',
      '0',
    ],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox', '133', '0', ''],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
      'Mobile Safari',
      '17',
      '1',
      '',
    ],
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36',
      'Chrome',
      '131',
      '0',
      '6778',
    ],
    ['Microsoft Outlook 16.0.17126; Pro', 'Outlook', '16', '0', '17126'],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Thunderbird/128.5.0',
      'Thunderbird',
      '128',
      '5',
      '0',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
      'Apple Mail',
      '605',
      '1',
      '15',
    ],
    [
      'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)',
      'GoogleImageProxy',
      '',
      '',
      '',
    ],
    ['YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html', 'YahooMailProxy', '', '', ''],
    ['Mozilla/5.0', 'AppleMailPrivacyProtection', '', '', ''],
  ])('%s', (raw, Family, Major, Minor, Patch) => {
    expect(parseUserAgent(raw)).toEqual({ Family, Major, Minor, Patch });
  });

  it('flags the mailbox providers image proxies, and nothing else', () => {
    expect(
      mailProxyOf('Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)'),
    ).toBe('GoogleImageProxy');
    expect(mailProxyOf('YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html')).toBe(
      'YahooMailProxy',
    );
    expect(mailProxyOf('Mozilla/5.0')).toBe('AppleMailPrivacyProtection');
    expect(
      mailProxyOf('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko)'),
    ).toBeUndefined();
    expect(mailProxyOf('Microsoft Outlook 16.0.17126; Pro')).toBeUndefined();
  });

  it('reads only the first 512 characters', () => {
    expect(parseUserAgent(`${'x'.repeat(600)} GoogleImageProxy`).Family).not.toBe('GoogleImageProxy');
  });
});
