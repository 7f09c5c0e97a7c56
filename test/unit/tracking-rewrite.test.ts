import { describe, expect, it } from 'vitest';
import { decodeAttribute, trackHtml } from '../../src/tracking/rewrite.js';
import { parseUserAgent } from '../../src/tracking/user-agent.js';

const tracking = {
  ownBaseUrl: 'https://mail.example/t',
  pixelUrl: 'https://mail.example/t/open/o.m1.sig',
  clickUrl: (target: string) => `https://mail.example/t/click/c.m1.sig?url=${encodeURIComponent(target)}`,
};
const hrefs = (html: string) => [...html.matchAll(/href\s*=\s*(["'])(.*?)\1/gi)].map((m) => m[2]);

describe('tracking an HTML body', () => {
  it('rewrites http(s) links of <a> tags whatever their quoting and case, and nothing else', () => {
    const html = [
      `<A HREF="https://a.example/x?y=1&amp;z=2">a</A>`,
      `<a title="t" href='http://b.example/'>b</a>`,
      `<a href = "https://c.example/&#x41;&#66;">c</a>`,
      `<a data-href="https://d.example/">d</a>`,
      `<area href="https://e.example/">`,
      `<a href="javascript:alert(1)">j</a><a href="mailto:x@y.example">m</a><a href="https://mail.example/t/unsubscribe/u.m1.s">u</a>`,
      `<a href="https://f.example/a&#13;&#10;Set-Cookie: x=1">f</a>`,
    ].join('');
    const out = trackHtml(html, { ...tracking, pixelUrl: undefined } as never);
    expect(hrefs(out)).toEqual([
      tracking.clickUrl('https://a.example/x?y=1&z=2').replace(/&/g, '&amp;'),
      tracking.clickUrl('http://b.example/').replace(/&/g, '&amp;'),
      tracking.clickUrl('https://c.example/AB').replace(/&/g, '&amp;'),
      'https://d.example/',
      'https://e.example/',
      'javascript:alert(1)',
      'mailto:x@y.example',
      'https://mail.example/t/unsubscribe/u.m1.s',
      'https://f.example/a&#13;&#10;Set-Cookie: x=1',
    ]);
    expect(out).toContain('<A HREF="https://mail.example/t/click/');
    expect(out).toContain('<a title="t" href="https://mail.example/t/click/');
  });

  it('puts the pixel before the last </body>, or at the end without one', () => {
    expect(trackHtml('<body><p>x</p></BODY >', tracking)).toMatch(
      /<p>x<\/p><img src="https:\/\/mail\.example\/t\/open\/o\.m1\.sig" width="1" height="1" alt="" style="[^"]+" \/><\/BODY >$/,
    );
    expect(trackHtml('<p>fragment</p>', tracking)).toMatch(/^<p>fragment<\/p><img src=/);
    expect(trackHtml('<p>a</p>', { ownBaseUrl: tracking.ownBaseUrl })).toBe('<p>a</p>');
  });

  it('decodes character references as a browser reads an attribute, and leaves unknown ones', () => {
    expect(decodeAttribute('a&amp;b&quot;&#39;&#x3C;&LT;&nbsp;&#0;')).toBe(`a&b"'<<&nbsp;&#0;`);
  });
});

describe('User-Agent families', () => {
  it.each([
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.71 Safari/537.36',
      'Chrome',
      '120',
      '0',
      '6099',
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.61',
      'Edge',
      '120',
      '0',
      '2210',
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15',
      'Safari',
      '17',
      '1',
      '',
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko)',
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
    ['Mozilla/5.0 (X11; Linux x86_64; rv:115.0) Gecko/20100101 Thunderbird/115.5.0', 'Thunderbird', '115', '5', '0'],
    ['Microsoft Outlook 16.0.17029; Pro', 'Outlook', '16', '0', '17029'],
    ['curl/8.4.0', 'curl', '8', '4', '0'],
    ['', 'Other', '', '', ''],
  ])('%s', (raw, Family, Major, Minor, Patch) => {
    expect(parseUserAgent(raw)).toEqual({ Family, Major, Minor, Patch });
  });
});
