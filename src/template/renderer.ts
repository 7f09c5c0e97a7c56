import Handlebars from 'handlebars';
import { ValidationError } from '../errors.js';

/** The personalisable parts of a message. */
export interface MessageTemplates {
  subject: string;
  htmlBody?: string;
  textBody?: string;
  ampBody?: string;
}

/** What one recipient's rendering takes: its custom fields and its signed unsubscribe link. */
export interface RecipientData {
  customFields: Readonly<Record<string, string>>;
  /** The value `{{unsubscribe}}` renders to: the recipient's signed unsubscribe URL. */
  unsubscribeUrl: string;
}

/** The parts of a message rendered for one recipient. */
export interface RenderedMessage {
  subject: string;
  htmlBody?: string;
  textBody?: string;
  ampBody?: string;
}

/** Templates compiled once; render them per recipient. */
export interface CompiledTemplates {
  render(recipient: RecipientData): RenderedMessage;
}

/** The custom field name the spec reserves for the unsubscribe link. */
export const RESERVED_FIELD = 'unsubscribe';

// One isolated instance for all of mailplane: the global Handlebars is never used or patched, so
// a host application's helpers and partials cannot change what mailplane renders, and vice versa.
const handlebars = Handlebars.create();

type Part = keyof MessageTemplates;

const RUNTIME_OPTIONS: RuntimeOptions = { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false };

/** Compiled templates by source, so a template sent again (the common case) is not compiled again. */
const compiled = new Map<string, HandlebarsTemplateDelegate | { error: string }>();
const CACHE_ENTRIES = 1000;
/** Larger templates are compiled each time rather than held in memory. */
const CACHEABLE_LENGTH = 64 * 1024;

function compileSource(source: string, escapeHtml: boolean): HandlebarsTemplateDelegate | { error: string } {
  const key = `${escapeHtml ? 'h' : 't'}${source}`;
  const hit = compiled.get(key);
  if (hit) {
    compiled.delete(key);
    compiled.set(key, hit);
    return hit;
  }
  // knownHelpersOnly turns an unknown helper ({{shout name}}) into a compile error here, at accept
  // time, instead of a render error at delivery; only the built-in block helpers remain.
  const options: CompileOptions = { knownHelpersOnly: true, noEscape: !escapeHtml, strict: false };
  let result: HandlebarsTemplateDelegate | { error: string };
  try {
    const template = handlebars.compile(source, options);
    // compile() is lazy: one render with no data compiles now, so syntax errors surface at accept time.
    template({}, RUNTIME_OPTIONS);
    result = template;
  } catch (error) {
    result = { error: (error instanceof Error ? error.message.split('\n')[0] : String(error)) ?? 'syntax error' };
  }
  if (source.length <= CACHEABLE_LENGTH) {
    compiled.set(key, result);
    if (compiled.size > CACHE_ENTRIES) compiled.delete(compiled.keys().next().value!);
  }
  return result;
}

function compilePart(part: Part, source: string, escapeHtml: boolean): HandlebarsTemplateDelegate {
  const result = compileSource(source, escapeHtml);
  if ('error' in result) {
    throw new ValidationError(`the ${part} template does not compile: ${result.error}`, [{ path: part, message: result.error }], 'TEMPLATE_ERROR');
  }
  return result;
}

/**
 * Compiles the templates of one send request (once, whatever the number of recipients). HTML and
 * AMP bodies escape substituted values; subject and text do not. A missing variable renders empty.
 * Throws a 422 `TEMPLATE_ERROR` naming the part that does not compile.
 *
 * @example
 * const templates = compileTemplates({ subject: 'Hi {{name}}', htmlBody: '<a href="{{unsubscribe}}">x</a>' });
 * templates.render({ customFields: { name: 'Ada' }, unsubscribeUrl: 'https://…' });
 */
export function compileTemplates(templates: MessageTemplates): CompiledTemplates {
  const subject = compilePart('subject', templates.subject, false);
  const html = templates.htmlBody === undefined ? undefined : compilePart('htmlBody', templates.htmlBody, true);
  const text = templates.textBody === undefined ? undefined : compilePart('textBody', templates.textBody, false);
  const amp = templates.ampBody === undefined ? undefined : compilePart('ampBody', templates.ampBody, true);

  return {
    render(recipient) {
      // A null-prototype object: custom field names such as "constructor" are plain data here.
      const data: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, recipient.customFields);
      data[RESERVED_FIELD] = recipient.unsubscribeUrl;
      return {
        subject: subject(data, RUNTIME_OPTIONS),
        ...(html && { htmlBody: html(data, RUNTIME_OPTIONS) }),
        ...(text && { textBody: text(data, RUNTIME_OPTIONS) }),
        ...(amp && { ampBody: amp(data, RUNTIME_OPTIONS) }),
      };
    },
  };
}
