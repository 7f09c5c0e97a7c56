import Handlebars from 'handlebars';
import { describe, expect, it } from 'vitest';
import { httpStatusOf, ValidationError } from 'mailplane';
import { MAX_CUSTOM_FIELDS } from '../../src/sending/request.js';
import { EACH_ITERATIONS, TEMPLATE_LIMITS } from '../../src/template/limits.js';
import { TemplateCompiler } from '../../src/template/renderer.js';
import { growthAsync, LINEAR_GROWTH_BOUND } from '../support/growth.js';

const unsubscribeUrl = 'https://t.example/u/abc';
const compiler = new TemplateCompiler();
let salt = 0;

/** {@link growthAsync} of compiling the template `make(n)` (made unique, so the compile cache never answers). */
const compileGrowth = (make: (n: number) => string, n: number) =>
  growthAsync((size) => compiler.compile({ subject: 's', htmlBody: `${make(size)}<!--${salt++}-->` }), n);

async function refusal(htmlBody: string): Promise<ValidationError> {
  try {
    await compiler.compile({ subject: 's', htmlBody });
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  return expect.unreachable('the template was accepted');
}

describe('template limits', () => {
  it('refuses a template over the size limit at once with TEMPLATE_TOO_LARGE', async () => {
    const started = performance.now();
    const error = await refusal('{{a}}'.repeat(200_000));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(httpStatusOf(error)).toBe(422);
    expect(error.code).toBe('TEMPLATE_TOO_LARGE');
    expect(error.message).toBe(
      `the htmlBody template is too large: it is 1000000 characters long, and a template may have at most ${TEMPLATE_LIMITS.maxLength}`,
    );
    expect(error.details).toEqual([{ path: 'htmlBody', message: expect.stringContaining('at most') }]);
  });

  it('refuses too many expressions before parsing them, with TEMPLATE_TOO_COMPLEX', async () => {
    const started = performance.now();
    const error = await refusal('{{a}}'.repeat(TEMPLATE_LIMITS.maxExpressions + 1));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(error.code).toBe('TEMPLATE_TOO_COMPLEX');
    expect(error.message).toContain(`more than ${TEMPLATE_LIMITS.maxExpressions} expressions`);
    // Dotted paths count a segment each: they compile to one lookup per segment.
    expect((await refusal('{{a.b.c.d.e}}'.repeat(1001))).code).toBe('TEMPLATE_TOO_COMPLEX');
  });

  it('refuses deep nesting, one block too large, nested #each and partials', async () => {
    const deep = '{{#if a}}'.repeat(TEMPLATE_LIMITS.maxDepth + 2) + '{{/if}}'.repeat(TEMPLATE_LIMITS.maxDepth + 2);
    expect((await refusal(deep)).message).toContain(`nested more than ${TEMPLATE_LIMITS.maxDepth} deep`);
    const block = `{{#if a}}${'{{b}}'.repeat(TEMPLATE_LIMITS.maxBlockExpressions)}{{/if}}`;
    expect((await refusal(block)).message).toContain(
      `one block holds more than ${TEMPLATE_LIMITS.maxBlockExpressions} expressions`,
    );
    const each = await refusal('{{#each this}}{{#each @root}}{{@key}}{{/each}}{{/each}}');
    expect(each.code).toBe('TEMPLATE_TOO_COMPLEX');
    expect(each.message).toContain('nested inside another {{#each}}');
    const repeated = await refusal(
      `{{#each this}}${'x'.repeat(TEMPLATE_LIMITS.maxRenderedText / EACH_ITERATIONS + 1)}{{/each}}`,
    );
    expect(repeated.message).toContain('characters of text per recipient');
    for (const partial of ['{{> footer}}', '{{#*inline "p"}}{{> p}}{{/inline}}{{> p}}']) {
      const error = await refusal(partial);
      expect(error.code).toBe('TEMPLATE_ERROR');
      expect(error.message).toContain('partials and decorators');
    }
    expect(EACH_ITERATIONS).toBe(MAX_CUSTOM_FIELDS + 1);
  });

  it('refuses a recipient whose fields would make a part render too large, before rendering it', async () => {
    const templates = await compiler.compile({ subject: 's', htmlBody: `<p>${'{{a}}'.repeat(1000)}</p>` });
    templates.checkRenderedLength({ a: 'x'.repeat(1000) }, 150, 'to.0.customFields');
    try {
      templates.checkRenderedLength({ a: 'x'.repeat(5000), b: 'short' }, 150, 'to.1.customFields');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).code).toBe('TEMPLATE_TOO_LARGE');
      expect((error as ValidationError).message).toBe(
        `the htmlBody template is too large for to.1.customFields: with these custom fields the htmlBody could render to 5000007 characters, and a part may render to at most ${TEMPLATE_LIMITS.maxRenderedLength}`,
      );
    }
    // A string literal can be substituted too, 101 times inside an {{#each}}.
    const literal = await compiler.compile({
      subject: 's',
      htmlBody: `{{#each this}}{{#with "${'y'.repeat(50_000)}"}}{{this}}{{/with}}{{/each}}`,
    });
    expect(() => literal.checkRenderedLength({}, 150, 'to.0.customFields')).toThrow(
      /could render to 5050000 characters/,
    );
  });

  it('accepts a large newsletter with thousands of substitutions and renders it whole', async () => {
    const row = (i: number) =>
      `<tr><td style="padding:8px;font-family:Arial,sans-serif">Hello {{name}}, item ${i}: {{#if offer}}<b>{{offer}}</b>{{else}}none{{/if}}</td></tr>\n`;
    let html = '<html><body><table>\n';
    for (let i = 0; i < 1200; i++) html += row(i);
    html += '</table><a href="{{unsubscribe}}">unsubscribe</a></body></html>';
    expect(html.length).toBeGreaterThan(120_000);
    const templates = await compiler.compile({ subject: 'Hi {{name}}', htmlBody: html });
    const rendered = templates.render({ customFields: { name: 'Ada', offer: '10%' }, unsubscribeUrl }).htmlBody!;
    expect(rendered.split('Hello Ada, item').length - 1).toBe(1200);
    expect(rendered).toContain(
      'item 1199: <b>10%</b></td></tr>\n</table><a href="https://t.example/u/abc">unsubscribe</a></body></html>',
    );
  });

  it('strips whitespace exactly as Handlebars does', async () => {
    const reference = Handlebars.create();
    const pieces = [
      '{{#if a}}',
      '{{else}}',
      '{{/if}}',
      '{{~#if b~}}',
      '{{~/if~}}',
      '{{~else~}}',
      '{{a}}',
      '{{~a}}',
      '{{a~}}',
      '{{!c}}',
      '{{~!c~}}',
      '\n',
      '  ',
      '\r\n',
      '\t',
      'x',
      '\u00a0',
      '{{#unless c}}',
      '{{/unless}}',
      '{{else if b}}',
    ];
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
    let compared = 0;
    while (compared < 1500) {
      let source = '';
      for (let i = 1 + next(10); i > 0; i--) source += pieces[next(pieces.length)];
      const data = { a: 'A', b: next(2) ? 'B' : '', c: next(2) ? 'C' : '' };
      let expected: string;
      try {
        expected = reference.compile(source, { knownHelpersOnly: true, noEscape: true })(data);
      } catch {
        continue;
      }
      const templates = await compiler.compile({ subject: source });
      expect(templates.render({ customFields: data, unsubscribeUrl }).subject, JSON.stringify(source)).toBe(expected);
      compared++;
    }
  });

  // Handlebars' own whitespace pass used /\s+$/ and /\r?\n\s*?$/: 100 KB of spaces took 3 s.
  it('compiles in time linear in the length of whitespace runs around stripped tags', async () => {
    expect(await compileGrowth((n) => `${' '.repeat(n)}x{{~a}}`, 10_000)).toBeLessThan(LINEAR_GROWTH_BOUND);
    expect(await compileGrowth((n) => `${'\n '.repeat(n / 2)}x{{#if a}}\n{{/if}}`, 10_000)).toBeLessThan(
      LINEAR_GROWTH_BOUND,
    );
    expect(await compileGrowth((n) => `{{#if a}}${'\n'.repeat(n)}x{{/if}}`, 10_000)).toBeLessThan(LINEAR_GROWTH_BOUND);
  });
});
