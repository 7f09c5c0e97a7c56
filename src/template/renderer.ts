import { createHash } from 'node:crypto';
import { setImmediate as yieldTurn } from 'node:timers/promises';
import Handlebars from 'handlebars';
import { ValidationError } from '../errors.js';
import {
  CompiledTemplateCache,
  defaultTemplateCacheConfig,
  type TemplateCacheConfig,
  type TemplateCacheSize,
} from './cache.js';
import { checkTemplateSource, measureTemplate, TEMPLATE_LIMITS, type TemplateMeasure } from './limits.js';
import { controlWhitespace } from './whitespace-control.js';

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
  /**
   * Refuses (422 `TEMPLATE_TOO_LARGE`, at `path`) a recipient for whom a part could render to more
   * than `TEMPLATE_LIMITS.maxRenderedLength` characters: the part's text plus each substitution
   * at the length of the recipient's longest value. An upper bound, computed without rendering.
   */
  checkRenderedLength(customFields: Readonly<Record<string, string>>, unsubscribeUrlLength: number, path: string): void;
}

/** The custom field name the spec reserves for the unsubscribe link. */
export const RESERVED_FIELD = 'unsubscribe';

// One isolated Handlebars environment for all of mailplane: the global Handlebars is never used or
// patched, so a host application's helpers and partials cannot change what mailplane renders, and
// vice versa. Configured here once and never changed after: it holds no state of any instance.
const handlebars = Handlebars.create();
// compile() parses with the instance's parse(); ours receives trees already parsed, measured and
// whitespace-controlled in linear time (Handlebars' own whitespace pass backtracks quadratically).
handlebars.parse = (input: string | hbs.AST.Program) => {
  if (typeof input === 'string') throw new TypeError('mailplane compiles parsed templates only');
  return input;
};
// The built-in {{log}} would write every recipient's rendering to the host's console.
handlebars.registerHelper('log', () => '');

type Part = keyof MessageTemplates;

const RUNTIME_OPTIONS: RuntimeOptions = { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false };

/** A compiled part: its top-level statements in pieces, each rendered in turn, and its measure. */
type Pieces = HandlebarsTemplateDelegate[] & { measure?: TemplateMeasure };
type Compiled = Pieces | { error: ValidationError };

/** What one piece compiled between two yields may hold: compiling costs ~25 µs an expression. */
const PIECE_EXPRESSIONS = 100;
const PIECE_CHARACTERS = 64 * 1024;

/**
 * Parses, measures and compiles one part. Parsing and measuring are linear and run at once;
 * Handlebars' compiler costs far more an expression, so the top-level statements are compiled in
 * pieces of at most {@link PIECE_EXPRESSIONS}, with a turn of the event loop between two pieces.
 * Rendering the pieces one after the other gives what the whole template renders: a top-level
 * statement sees nothing of the others but the data, and whitespace control ran on the whole.
 */
async function compilePieces(part: Part, source: string, escapeHtml: boolean): Promise<Pieces> {
  checkTemplateSource(part, source);
  let ast: hbs.AST.Program;
  try {
    ast = handlebars.parseWithoutProcessing(source);
  } catch (error) {
    throw templateError(part, error, parserPosition());
  }
  const measure = measureTemplate(part, ast);
  const { statements } = measure;
  controlWhitespace(ast);
  const pieces: Pieces = Object.assign([], { measure });
  // Text with nothing to substitute (most relayed mail, a subject line without a field) renders to
  // its own content: no Handlebars compilation, which costs more than everything else of an accept.
  if (ast.body.every((statement) => statement.type === 'ContentStatement')) {
    const text = ast.body.map((statement) => (statement as hbs.AST.ContentStatement).value).join('');
    pieces.push((() => text) as HandlebarsTemplateDelegate);
    return pieces;
  }
  for (let start = 0; start < ast.body.length || pieces.length === 0;) {
    let end = start;
    let expressions = 0;
    let characters = 0;
    while (
      end < ast.body.length &&
      (end === start || (expressions + statements[end]! <= PIECE_EXPRESSIONS && characters <= PIECE_CHARACTERS))
    ) {
      expressions += statements[end]!;
      characters +=
        ast.body[end]!.type === 'ContentStatement' ? (ast.body[end] as hbs.AST.ContentStatement).value.length : 0;
      end++;
    }
    // Parsing ran in this turn, and each piece gets one of its own.
    await yieldTurn();
    pieces.push(compileProgram(part, { ...ast, body: ast.body.slice(start, end) }, escapeHtml));
    start = end;
  }
  return pieces;
}

function compileProgram(part: Part, program: hbs.AST.Program, escapeHtml: boolean): HandlebarsTemplateDelegate {
  // knownHelpersOnly turns an unknown helper ({{shout name}}) into a compile error here, at accept
  // time, instead of a render error at delivery; only the built-in block helpers remain.
  const template = handlebars.compile(program, { knownHelpersOnly: true, noEscape: !escapeHtml, strict: false });
  try {
    // compile() is lazy: one render with no data compiles now, so syntax errors surface at accept time.
    template({}, RUNTIME_OPTIONS);
  } catch (error) {
    throw templateError(part, error);
  }
  return template;
}

function templateError(part: Part, error: unknown, position?: SourcePosition): ValidationError {
  const message = handlebarsMessage(error, position);
  return new ValidationError(
    `the ${part} template does not compile: ${message}`,
    [{ path: part, message }],
    'TEMPLATE_ERROR',
  );
}

/** Where in the source a parse stopped: 1-based line, 0-based column (the parser's own counts). */
interface SourcePosition {
  line: number;
  column: number;
}

/**
 * Where Handlebars' parser stopped: its lexer keeps the location of the last token it read, and the
 * parse is synchronous, so right after a parse error it is that error's position. The parse error's
 * own text gives only the line.
 */
function parserPosition(): SourcePosition | undefined {
  const lexer = (Handlebars as { Parser?: { lexer?: { yylloc?: { first_line?: unknown; first_column?: unknown } } } })
    .Parser?.lexer;
  const at = lexer?.yylloc;
  return typeof at?.first_line === 'number' && typeof at.first_column === 'number'
    ? { line: at.first_line, column: at.first_column }
    : undefined;
}

/**
 * The useful part of a Handlebars error: the position ("on line 2, column 7") and, for a parse
 * error, what the parser expected and what it found. The echo of the source with a `-----^` marker
 * under it is dropped: it is cut to 20 characters either side and its line breaks are removed, so in
 * a JSON error message it shows less than the position does.
 */
function handlebarsMessage(error: unknown, position?: SourcePosition): string {
  if (!(error instanceof Error)) return String(error) || 'syntax error';
  const lines = error.message.split('\n');
  const marker = lines.findIndex((line) => /^-*\^$/.test(line));
  if (marker < 1) return lines[0] || 'syntax error';
  let head = lines[0]!.replace(/:\s*$/, '');
  if (position && head.includes(`on line ${position.line}`)) {
    head = head.replace(`on line ${position.line}`, `on line ${position.line}, column ${position.column + 1}`);
  }
  const detail = lines
    .slice(marker + 1)
    .join(' ')
    .trim();
  return detail ? `${head}: ${detail.charAt(0).toLowerCase()}${detail.slice(1)}` : head;
}

const renderPieces = (pieces: Pieces, data: Record<string, string>) => {
  let out = '';
  for (const piece of pieces) out += piece(data, RUNTIME_OPTIONS);
  return out;
};

/**
 * `text` as a template that renders it (mailplane's own sends of text it did not write: a forwarded
 * message's subject). Every `{{` is escaped as `\{{`; backslashes just before one are dropped,
 * since Handlebars reads `\\{{` as a backslash and a real expression, so no input compiles to an
 * expression or fails to compile.
 */
export function literalTemplate(text: string): string {
  // A run of backslashes is matched from its start only (the lookbehind), so the scan stays linear.
  return text.replace(/(?<!\\)\\*\{\{/g, '\\{{');
}

/**
 * Compiles message templates for one mailplane instance, which builds it once (`createMailplane`,
 * `context.templateCompiler`) with the bound of its cache (`MailplaneOptions.templateCache`).
 * Compiled parts are kept by a SHA-256 of their source, so a template sent again (the common case,
 * and every batch of a bulk send) is not parsed and compiled again, and concurrent requests with
 * the same template share one compilation. `close()` empties the cache.
 */
export class TemplateCompiler {
  private readonly cache: CompiledTemplateCache<Promise<Compiled>>;

  constructor(config: TemplateCacheConfig = defaultTemplateCacheConfig) {
    this.cache = new CompiledTemplateCache(config);
  }

  /**
   * Compiles the templates of one send request (once, whatever the number of recipients). HTML and
   * AMP bodies escape substituted values; subject and text do not. A missing variable renders empty.
   * Throws a 422 naming the part: `TEMPLATE_ERROR` when it does not compile, `TEMPLATE_TOO_LARGE`
   * or `TEMPLATE_TOO_COMPLEX` when it is over the limits of src/template/limits.ts.
   *
   * @example
   * const templates = await ctx.templateCompiler.compile({ subject: 'Hi {{name}}', htmlBody: '<a href="{{unsubscribe}}">x</a>' });
   * templates.render({ customFields: { name: 'Ada' }, unsubscribeUrl: 'https://…' });
   */
  async compile(templates: MessageTemplates): Promise<CompiledTemplates> {
    const subject = await this.compilePart('subject', templates.subject, false);
    const html =
      templates.htmlBody === undefined ? undefined : await this.compilePart('htmlBody', templates.htmlBody, true);
    const text =
      templates.textBody === undefined ? undefined : await this.compilePart('textBody', templates.textBody, false);
    const amp =
      templates.ampBody === undefined ? undefined : await this.compilePart('ampBody', templates.ampBody, true);
    return compiledTemplates({ subject, htmlBody: html, textBody: text, ampBody: amp });
  }

  /** How many compiled parts the cache keeps, and the characters of source they stand for. */
  get cached(): TemplateCacheSize {
    return this.cache.size;
  }

  /** Empties the cache (`mailplane.close()`). */
  close(): void {
    this.cache.clear();
  }

  private async compilePart(part: Part, source: string, escapeHtml: boolean): Promise<Pieces> {
    const result = await this.compileSource(part, source, escapeHtml);
    if ('error' in result) throw result.error;
    return result;
  }

  private compileSource(part: Part, source: string, escapeHtml: boolean): Promise<Compiled> {
    // Refused at once, without hashing it or taking room in the cache.
    if (source.length > TEMPLATE_LIMITS.maxLength)
      return compilePieces(part, source, escapeHtml).catch((error: unknown) => ({ error: error as ValidationError }));
    const key = createHash('sha256')
      .update(escapeHtml ? 'h' : 't')
      .update(source)
      .digest('base64');
    const hit = this.cache.get(key);
    if (hit) return hit;
    const template: Promise<Compiled> = compilePieces(part, source, escapeHtml).catch((error: unknown) => {
      if (error instanceof ValidationError) return { error };
      // Not the template's fault (a bug): not kept, so the next request tries again.
      this.cache.forget(key, template);
      throw error;
    });
    this.cache.set(key, template, source.length);
    return template;
  }
}

/** The parts of one send request, compiled: rendered per recipient, checked against the rendered-length limit. */
function compiledTemplates(parts: {
  subject: Pieces;
  htmlBody: Pieces | undefined;
  textBody: Pieces | undefined;
  ampBody: Pieces | undefined;
}): CompiledTemplates {
  const { subject, htmlBody: html, textBody: text, ampBody: amp } = parts;
  return {
    checkRenderedLength(customFields, unsubscribeUrlLength, path) {
      // A key (`{{@key}}`) is at most 100 characters, `{{this}}` on the fields "[object Object]".
      let longest = Math.max(unsubscribeUrlLength, 100);
      for (const value of Object.values(customFields)) longest = Math.max(longest, value.length);
      for (const [part, pieces] of Object.entries(parts)) {
        if (!pieces?.measure) continue;
        const { renderedText, substitutions, longestLiteral } = pieces.measure;
        const length = renderedText + substitutions * Math.max(longest, longestLiteral);
        const limit = TEMPLATE_LIMITS.maxRenderedLength;
        if (length > limit) {
          const message = `with these custom fields the ${part} could render to ${length} characters, and a part may render to at most ${limit}`;
          throw new ValidationError(
            `the ${part} template is too large for ${path}: ${message}`,
            [{ path, message }],
            'TEMPLATE_TOO_LARGE',
          );
        }
      }
    },
    render(recipient) {
      // A null-prototype object: custom field names such as "constructor" are plain data here.
      const data: Record<string, string> = Object.assign(
        Object.create(null) as Record<string, string>,
        recipient.customFields,
      );
      data[RESERVED_FIELD] = recipient.unsubscribeUrl;
      return {
        subject: renderPieces(subject, data),
        ...(html && { htmlBody: renderPieces(html, data) }),
        ...(text && { textBody: renderPieces(text, data) }),
        ...(amp && { ampBody: renderPieces(amp, data) }),
      };
    },
  };
}
