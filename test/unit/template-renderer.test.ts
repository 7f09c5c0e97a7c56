import { describe, expect, it } from 'vitest';
import Handlebars from 'handlebars';
import { resolveTemplateCacheConfig } from '../../src/template/cache.js';
import fc from 'fast-check';
import { literalTemplate, TemplateCompiler } from '../../src/template/renderer.js';
import { httpStatusOf, ValidationError } from 'mailplane';

const unsubscribeUrl = 'https://t.example/u/abc?x=1&y=2';

const compiler = new TemplateCompiler();

describe('TemplateCompiler', () => {
  it('personalises subject, html and text per recipient, escaping only HTML', async () => {
    const t = await compiler.compile({
      subject: 'Hi {{name}} & co',
      htmlBody: '<p>Hello {{name}}</p><a href="{{unsubscribe}}">unsubscribe</a>',
      textBody: 'Hello {{name}}, unsubscribe: {{unsubscribe}}',
    });
    const a = t.render({ customFields: { name: '<b>Ada</b>' }, unsubscribeUrl });
    expect(a.subject).toBe('Hi <b>Ada</b> & co');
    expect(a.htmlBody).toBe(
      '<p>Hello &lt;b&gt;Ada&lt;/b&gt;</p><a href="https://t.example/u/abc?x&#x3D;1&amp;y&#x3D;2">unsubscribe</a>',
    );
    expect(a.textBody).toBe(`Hello <b>Ada</b>, unsubscribe: ${unsubscribeUrl}`);
    expect(t.render({ customFields: { name: 'Bob' }, unsubscribeUrl }).subject).toBe('Hi Bob & co');
  });

  it('renders text with nothing to substitute exactly as Handlebars does, escaped braces included', async () => {
    // Such parts skip Handlebars' compiler (src/template/renderer.ts); the answer must not change.
    const sources = [
      'Hello & <b>welcome</b>',
      'Literal \\{{name}} stays',
      'a { b } {c} \\ d',
      '',
      '   spaced   \r\nlines\n',
    ];
    const reference = Handlebars.create();
    for (const source of sources) {
      const t = await compiler.compile({ subject: source, htmlBody: source, textBody: source });
      const expected = reference.compile(source)({});
      expect(t.render({ customFields: { name: 'Ada' }, unsubscribeUrl })).toEqual({
        subject: expected,
        htmlBody: expected,
        textBody: expected,
      });
    }
  });

  it('renders a missing variable and #each over missing data as empty', async () => {
    const t = await compiler.compile({ subject: '[{{missing}}]', textBody: 'a{{#each items}}-{{this}}{{/each}}b' });
    expect(t.render({ customFields: {}, unsubscribeUrl })).toEqual({ subject: '[]', textBody: 'ab' });
  });

  it('treats prototype-looking field names as plain data', async () => {
    const fields = JSON.parse('{"__proto__":"p","constructor":"c"}') as Record<string, string>;
    const t = await compiler.compile({ subject: '{{constructor}}|{{__proto__}}|{{toString}}' });
    expect(t.render({ customFields: fields, unsubscribeUrl }).subject).toBe('c|p|');
    expect(({} as Record<string, unknown>).p).toBeUndefined();
  });

  it('refuses templates that do not compile, naming the part, with a 422', async () => {
    for (const [templates, part] of [
      [{ subject: 'Hi {{name' }, 'subject'],
      [{ subject: 'ok', htmlBody: '{{#if x}}open' }, 'htmlBody'],
      [{ subject: 'ok', textBody: '{{shout name}}' }, 'textBody'],
    ] as const) {
      try {
        await compiler.compile(templates);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        expect(httpStatusOf(error)).toBe(422);
        expect((error as ValidationError).code).toBe('TEMPLATE_ERROR');
        expect((error as ValidationError).message).toContain(part);
      }
    }
  });
});

describe('the cache of a TemplateCompiler', () => {
  it('shares one compilation between requests with the same template, and keeps it once', async () => {
    const own = new TemplateCompiler();
    const [a, b] = await Promise.all([
      own.compile({ subject: 'Hi {{name}}' }),
      own.compile({ subject: 'Hi {{name}}' }),
    ]);
    expect(a.render({ customFields: { name: 'Ada' }, unsubscribeUrl }).subject).toBe('Hi Ada');
    expect(b.render({ customFields: { name: 'Bob' }, unsubscribeUrl }).subject).toBe('Hi Bob');
    expect(own.cached).toEqual({ templates: 1, characters: 'Hi {{name}}'.length });
  });

  it('keeps at most its bound of templates and characters, the least recently used going first', async () => {
    const byCount = new TemplateCompiler({ maxTemplates: 2, maxCharacters: 1000 });
    for (const subject of ['one {{a}}', 'two {{a}}', 'one {{a}}', 'three {{a}}']) await byCount.compile({ subject });
    expect(byCount.cached).toEqual({ templates: 2, characters: 'one {{a}}'.length + 'three {{a}}'.length });
    const byCharacters = new TemplateCompiler({ maxTemplates: 1000, maxCharacters: 20 });
    for (const subject of ['a'.repeat(8), 'b'.repeat(8), 'c'.repeat(8)]) await byCharacters.compile({ subject });
    expect(byCharacters.cached).toEqual({ templates: 2, characters: 16 });
    byCharacters.close();
    expect(byCharacters.cached).toEqual({ templates: 0, characters: 0 });
  });

  it('belongs to its compiler: another starts empty', async () => {
    const first = new TemplateCompiler();
    await first.compile({ subject: 'Hello {{name}}', textBody: 'Hi' });
    expect(first.cached.templates).toBe(2);
    expect(new TemplateCompiler().cached).toEqual({ templates: 0, characters: 0 });
  });

  it('takes its bound from the configuration (createMailplane refuses a bad one: mailplane-options.test.ts)', () => {
    expect(resolveTemplateCacheConfig()).toEqual({ maxTemplates: 1000, maxCharacters: 64 * 1024 * 1024 });
    expect(resolveTemplateCacheConfig({ maxTemplates: 10 })).toEqual({
      maxTemplates: 10,
      maxCharacters: 64 * 1024 * 1024,
    });
  });
});

describe('literalTemplate (text mailplane did not write, sent through the accept path)', () => {
  const unsubscribeUrl = 'https://t.example/u';
  const subjectOf = async (compiler: TemplateCompiler, text: string) =>
    (await compiler.compile({ subject: literalTemplate(text) })).render({ customFields: { x: 'X' }, unsubscribeUrl })
      .subject;

  it('renders as written whatever mustaches, blocks and comments it holds', async () => {
    const compiler = new TemplateCompiler();
    for (const text of ['{{x}}', '{{#if x}}', '{{{x}}}', '{{!--', '}}{{', '{{>p}}', '{{{{raw}}}}', 'Re: {{x}} \\ {{'])
      expect(await subjectOf(compiler, text)).toBe(text);
  });

  it('reads a long run of backslashes in one pass', () => {
    // Quadratic backtracking would take hours on this; a linear scan takes milliseconds.
    const text = `${'\\'.repeat(1_000_000)}x{{y`;
    expect(literalTemplate(text)).toBe(`${'\\'.repeat(1_000_000)}x\\{{y`);
  });

  it('never fails to compile nor renders a value, only dropping backslashes just before a {{', async () => {
    const compiler = new TemplateCompiler();
    const pieces = fc.constantFrom('{{', '}}', '{', '}', '\\', '#if', '#each x', 'x', '/if', ' ', '>', '!--', 'else');
    await fc.assert(
      fc.asyncProperty(
        fc.array(pieces, { maxLength: 30 }).map((parts) => parts.join('')),
        async (text) => {
          expect(await subjectOf(compiler, text)).toBe(text.replace(/\\+(?=\{\{)/g, ''));
        },
      ),
      { numRuns: 300 },
    );
  });
});
