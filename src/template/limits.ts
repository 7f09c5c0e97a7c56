/**
 * The size and complexity a template may have. Handlebars compiles a template into one JavaScript
 * function whose cost grows with the number of expressions (tens of microseconds each, more once
 * the garbage collector has a large source tree to walk: 200,000 `{{a}}` took 6.6 s), and renders
 * an `{{#each}}` body once per custom field. These limits keep the worst template mailplane
 * accepts well under 100 ms to compile and bounded to render, and are checked before the
 * expensive step: the size and a count of `{{` before parsing, the rest on the parsed tree.
 */
import { ValidationError } from '../errors.js';

/** The limits on one template part (subject, htmlBody, textBody or ampBody). */
export const TEMPLATE_LIMITS = {
  /** Characters in one part: room for the largest newsletters (Gmail clips HTML above 102 KB). */
  maxLength: 524_288,
  /** Expressions in one part: mustaches, blocks, their arguments, subexpressions and path segments. */
  maxExpressions: 5_000,
  /**
   * Expressions in one top-level block (`{{#if}}…{{/if}}` with all it holds): a template is
   * compiled a few top-level statements at a time, yielding to other work in between, and a
   * block is compiled in one go.
   */
  maxBlockExpressions: 1_000,
  /** Nesting of blocks and subexpressions. */
  maxDepth: 24,
  /**
   * Characters of template text rendered for one recipient, counting an `{{#each}}` body once per
   * field it can iterate over (the custom fields and `unsubscribe`).
   */
  maxRenderedText: 2_097_152,
  /**
   * Characters one part may render to for one recipient, substitutions included: checked at
   * accept against each recipient's fields (5,000 substitutions of a 10,000-character field would
   * be 50 MB to render, track, encode and sign for every recipient).
   */
  maxRenderedLength: 4_194_304,
} as const;

/**
 * How many times an `{{#each}}` body can render: the only object a template sees is the
 * recipient's fields, at most `MAX_CUSTOM_FIELDS` (100, src/sending/request.ts) and `unsubscribe`.
 */
export const EACH_ITERATIONS = 101;

type Program = hbs.AST.Program;
type Statement = hbs.AST.Statement;
type Expression = hbs.AST.Expression;
type Call = hbs.AST.MustacheStatement | hbs.AST.BlockStatement | hbs.AST.SubExpression;

/** What a part's parsed tree is measured as. */
export interface TemplateMeasure {
  /** Expressions, as limited by {@link TEMPLATE_LIMITS}.maxExpressions. */
  expressions: number;
  /** Substitutions rendered for one recipient, `{{#each}}` iterations counted. */
  substitutions: number;
  /** Template text rendered for one recipient, `{{#each}}` iterations counted. */
  renderedText: number;
  /** Expressions of each top-level statement, in order (0 for text and comments). */
  statements: number[];
  /** The longest string literal: a substitution can render one (`{{"…"}}`, `{{#with "…"}}{{this}}`). */
  longestLiteral: number;
}

const tooComplex = (part: string, message: string) =>
  new ValidationError(
    `the ${part} template is too complex: ${message}`,
    [{ path: part, message }],
    'TEMPLATE_TOO_COMPLEX',
  );

/**
 * Refuses (422) a template that is too large to parse: longer than `maxLength`
 * (`TEMPLATE_TOO_LARGE`) or with more tags (`{{` other than `{{/…}}` and `{{else}}`) than
 * `maxExpressions` (`TEMPLATE_TOO_COMPLEX`): each such tag holds at least one expression.
 * One pass over the text.
 */
export function checkTemplateSource(part: string, source: string): void {
  const { maxLength, maxExpressions } = TEMPLATE_LIMITS;
  if (source.length > maxLength) {
    const message = `it is ${source.length} characters long, and a template may have at most ${maxLength}`;
    throw new ValidationError(
      `the ${part} template is too large: ${message}`,
      [{ path: part, message }],
      'TEMPLATE_TOO_LARGE',
    );
  }
  let opened = 0;
  for (let at = source.indexOf('{{'); at !== -1; at = source.indexOf('{{', at + 2)) {
    // A closing tag or an else has no expression of its own, and each belongs to a counted block.
    const tag = source.charCodeAt(at + 2) === 0x7e ? at + 3 : at + 2; // past `{{~`
    if (source.charCodeAt(tag) === 0x2f || source.startsWith('else', tag)) continue;
    if (++opened > maxExpressions)
      throw tooComplex(part, `it has more than ${maxExpressions} expressions ({{…}}), the most a template may have`);
  }
}

/**
 * Measures a parsed template and refuses (422) what is over the limits: too many expressions or
 * too deep (`TEMPLATE_TOO_COMPLEX`), `{{#each}}` inside `{{#each}}` (each level multiplies the
 * rendering by the number of fields), too much text rendered per recipient, and partials and
 * decorators (`TEMPLATE_ERROR`: no partial is ever registered, and an inline one can call itself),
 * and a top-level block over `maxBlockExpressions`.
 * Iterative, so a deep tree cannot exhaust the stack before it is refused.
 */
export function measureTemplate(part: string, ast: Program): TemplateMeasure {
  const { maxExpressions, maxBlockExpressions, maxDepth, maxRenderedText } = TEMPLATE_LIMITS;
  const measure: TemplateMeasure = {
    expressions: 0,
    substitutions: 0,
    renderedText: 0,
    statements: [],
    longestLiteral: 0,
  };
  // A dotted path (`a.b.c`) compiles to one lookup a segment: each segment counts.
  const count = (depth: number, node?: Expression) => {
    const segments = node?.type === 'PathExpression' ? (node as hbs.AST.PathExpression).parts.length : 1;
    if (node?.type === 'StringLiteral')
      measure.longestLiteral = Math.max(measure.longestLiteral, (node as hbs.AST.StringLiteral).value.length);
    measure.expressions += Math.max(segments, 1);
    if (measure.expressions > maxExpressions)
      throw tooComplex(part, `it has more than ${maxExpressions} expressions, the most a template may have`);
    if (depth > maxDepth) throw tooComplex(part, `blocks and subexpressions are nested more than ${maxDepth} deep`);
  };
  const call = (node: Call, depth: number) => {
    const args: { node: Expression; depth: number }[] = [];
    const push = (list: Expression[], at: number) => list.forEach((arg) => args.push({ node: arg, depth: at }));
    count(depth, node.path);
    push(node.params, depth + 1);
    push(node.hash?.pairs.map((pair) => pair.value) ?? [], depth + 1);
    for (let next = args.pop(); next; next = args.pop()) {
      count(next.depth, next.node);
      if (next.node.type === 'SubExpression') {
        const sub = next.node as hbs.AST.SubExpression;
        push(sub.params, next.depth + 1);
        push(sub.hash?.pairs.map((pair) => pair.value) ?? [], next.depth + 1);
      }
    }
  };
  const programs: { body: Statement[]; depth: number; times: number }[] = [];
  const statement = (node: Statement, depth: number, times: number) => {
    switch (node.type) {
      case 'ContentStatement':
        measure.renderedText += (node as hbs.AST.ContentStatement).value.length * times;
        if (measure.renderedText > maxRenderedText) {
          throw tooComplex(
            part,
            `it renders more than ${maxRenderedText} characters of text per recipient (an {{#each}} body counts once per field)`,
          );
        }
        break;
      case 'CommentStatement':
        break;
      case 'MustacheStatement':
        call(node as hbs.AST.MustacheStatement, depth);
        measure.substitutions += times;
        break;
      case 'BlockStatement': {
        const block = node as hbs.AST.BlockStatement;
        call(block, depth);
        const each = block.path.type === 'PathExpression' && block.path.original === 'each';
        if (each && times > 1) throw tooComplex(part, 'an {{#each}} block is nested inside another {{#each}}');
        if (block.program)
          programs.push({ body: block.program.body, depth: depth + 1, times: each ? times * EACH_ITERATIONS : times });
        if (block.inverse) programs.push({ body: block.inverse.body, depth: depth + 1, times });
        break;
      }
      default: {
        const message = 'partials and decorators ({{> name}}, {{* name}}) are not supported';
        throw new ValidationError(
          `the ${part} template does not compile: ${message}`,
          [{ path: part, message }],
          'TEMPLATE_ERROR',
        );
      }
    }
  };
  for (const top of ast.body) {
    const before = measure.expressions;
    statement(top, 0, 1);
    for (let next = programs.pop(); next; next = programs.pop()) {
      for (const inner of next.body) statement(inner, next.depth, next.times);
    }
    const expressions = measure.expressions - before;
    if (expressions > maxBlockExpressions)
      throw tooComplex(part, `one block holds more than ${maxBlockExpressions} expressions, the most a block may hold`);
    measure.statements.push(expressions);
  }
  return measure;
}
