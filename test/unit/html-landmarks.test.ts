import { describe, expect, it } from 'vitest';
import { htmlLandmarks, spliceHtml } from '../../src/model/html.js';
import { decodeAttribute, MAX_TRACKED_LINKS, trackHtml } from '../../src/tracking/rewrite.js';
import { growth, LINEAR_GROWTH_BOUND } from '../support/growth.js';

const tracking = {
  ownBaseUrl: 'https://mail.example/t',
  pixelUrl: 'https://mail.example/t/open/o.m1.sig',
  clickUrl: (target: string) => `https://mail.example/t/click/c.m1.sig?url=${encodeURIComponent(target)}`,
};

describe('HTML landmarks', () => {
  it('finds the body and the first href of each <a>, as a browser would, outside comments and scripts', () => {
    const html =
      `<html><BODY class="x" data-a=">"><!-- <a href="https://c.example/"> --><script>"<a href='https://s.example/'>"</script>` +
      `<a href=https://u.example/ HREF="https://second.example/">u</a><a title=t href = 'https://q.example/'>q</a><a href>n</a></Body ></body></html>`;
    const found = htmlLandmarks(html, { links: true });
    expect(html.slice(0, found.bodyStart)).toBe('<html><BODY class="x" data-a=">">');
    expect(html.slice(found.bodyEnd)).toBe('</body></html>');
    expect(found.links.map((link) => [link.value, html.slice(link.start, link.end)])).toEqual([
      ['https://u.example/', 'https://u.example/'],
      ['https://q.example/', `'https://q.example/'`],
    ]);
    expect(htmlLandmarks('<p>no body</p>')).toEqual({ bodyStart: -1, bodyEnd: -1, links: [] });
    expect(
      spliceHtml('abcdef', [
        { start: 1, end: 2, text: 'X' },
        { start: 4, end: 4, text: '-' },
      ]),
    ).toBe('aXcd-ef');
  });

  it('changes only the tracked href values and adds the pixel, byte for byte elsewhere', () => {
    const html =
      `<!DOCTYPE html>\r\n<html><body style="a:b">\n<p class=x>Caf\u00e9 &nbsp; <b>bold</b><br/>\n` +
      `<a  href = "https://a.example/?q=1&amp;r=2" target=_blank>a</a> <a href=https://b.example/>b</a>\n<![CDATA[x]]><?pi?>\n</body>\n</html>\n`;
    const out = trackHtml(html, tracking);
    const a = `"${tracking.clickUrl('https://a.example/?q=1&r=2').replace(/&/g, '&amp;')}"`;
    const b = `"${tracking.clickUrl('https://b.example/').replace(/&/g, '&amp;')}"`;
    const pixel = out.slice(out.indexOf('<img src="https://mail.example/t/open/'), out.lastIndexOf('</body>'));
    expect(out).toBe(
      html
        .replace('"https://a.example/?q=1&amp;r=2"', a)
        .replace('https://b.example/', b)
        .replace('</body>', `${pixel}</body>`),
    );
  });

  it(`tracks the first ${MAX_TRACKED_LINKS} links of a message and leaves the others as written`, () => {
    const html = Array.from(
      { length: MAX_TRACKED_LINKS + 10 },
      (_, i) => `<a href="https://x.example/${i}">${i}</a>`,
    ).join('');
    const out = trackHtml(html, { ...tracking, pixelUrl: undefined } as never);
    expect(out.split('https://mail.example/t/click/').length - 1).toBe(MAX_TRACKED_LINKS);
    expect(out.endsWith(html.slice(html.indexOf(`<a href="https://x.example/${MAX_TRACKED_LINKS}">`)))).toBe(true);
  });

  // The patterns this replaced backtracked: <body x 40,000 took 5.6 s, <a x 100,000 took 8.3 s.
  it('takes time linear in the size of adversarial HTML', () => {
    expect(growth((n) => htmlLandmarks('<body'.repeat(n)), 10_000)).toBeLessThan(LINEAR_GROWTH_BOUND);
    expect(growth((n) => trackHtml('<a '.repeat(n), tracking), 10_000)).toBeLessThan(LINEAR_GROWTH_BOUND);
    expect(growth((n) => trackHtml(`<a href="${'<a '.repeat(n)}`, tracking), 10_000)).toBeLessThan(LINEAR_GROWTH_BOUND);
    expect(growth((n) => trackHtml('</body'.repeat(n), tracking), 10_000)).toBeLessThan(LINEAR_GROWTH_BOUND);
    expect(growth((n) => trackHtml('<!--<a'.repeat(n), tracking), 10_000)).toBeLessThan(LINEAR_GROWTH_BOUND);
    expect(growth((n) => decodeAttribute('&a;&#x1'.repeat(n)), 3_000)).toBeLessThan(LINEAR_GROWTH_BOUND);
  });
});
