/**
 * Handlebars' whitespace control (standalone lines and `~`), applied to a parsed template in time
 * linear in its size. Handlebars' own pass (handlebars/lib/handlebars/compiler/whitespace-control.js,
 * MIT) finds and strips whitespace with patterns such as `/\s+$/` and `/\r?\n\s*?$/`, which
 * backtrack over every whitespace run of a text node: 100 KB of spaces before a `{{~x}}` took
 * 3 s. This is the same algorithm, node for node, with those patterns replaced by scans from one
 * end of the string, so templates strip exactly as Handlebars strips them.
 */
import type Handlebars from 'handlebars';

type Node = hbs.AST.Node;
type Program = hbs.AST.Program;
type Statement = hbs.AST.Statement;
// Handlebars' typings declare `original` as strip flags; it is the node's source text.
type Content = Omit<hbs.AST.ContentStatement, 'original'> & {
  original: string;
  rightStripped?: boolean;
  leftStripped?: boolean;
};
type Block = hbs.AST.BlockStatement & { inverse?: Program & { chained?: boolean } };

/** What a statement tells its parent program about stripping around it. */
interface Strip {
  open?: boolean;
  close?: boolean;
  openStandalone?: boolean | undefined;
  closeStandalone?: boolean | undefined;
  inlineStandalone?: boolean;
}

/** JavaScript's `\s`, one UTF-16 code unit at a time. */
function isSpace(code: number): boolean {
  return (
    (code >= 9 && code <= 13) ||
    code === 32 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

const isBlank = (code: number) => code === 32 || code === 9;

/** Index where the run of trailing characters matching `test` starts (`text.length` when none). */
function trailingRun(text: string, test: (code: number) => boolean): number {
  let i = text.length;
  while (i > 0 && test(text.charCodeAt(i - 1))) i--;
  return i;
}

/** Index where the run of leading characters matching `test` ends. */
function leadingRun(text: string, test: (code: number) => boolean): number {
  let i = 0;
  while (i < text.length && test(text.charCodeAt(i))) i++;
  return i;
}

const isContent = (node: Node | undefined): node is Node & Content => node?.type === 'ContentStatement';

/** `/\r?\n\s*?$/` (`/(^|\r?\n)\s*?$/` when `atStart`): a line break in the trailing whitespace. */
function endsWithBlankLine(text: string, atStart: boolean): boolean {
  const start = trailingRun(text, isSpace);
  return (atStart && start === 0) || text.lastIndexOf('\n') >= start;
}

/** `/^\s*?\r?\n/` (`/^\s*?(\r?\n|$)/` when `atEnd`): a line break in the leading whitespace. */
function startsWithBlankLine(text: string, atEnd: boolean): boolean {
  const end = leadingRun(text, isSpace);
  if (atEnd && end === text.length) return true;
  const lineBreak = text.indexOf('\n');
  return lineBreak !== -1 && lineBreak < end;
}

function isPrevWhitespace(body: Statement[], i: number | undefined, isRoot?: boolean): boolean | undefined {
  const at = i ?? body.length;
  const prev = body[at - 1];
  if (!prev) return isRoot;
  if (isContent(prev)) return endsWithBlankLine(prev.original, !body[at - 2] && isRoot === true);
  return undefined;
}

function isNextWhitespace(body: Statement[], i: number | undefined, isRoot?: boolean): boolean | undefined {
  const at = i ?? -1;
  const next = body[at + 1];
  if (!next) return isRoot;
  if (isContent(next)) return startsWithBlankLine(next.original, !body[at + 2] && isRoot === true);
  return undefined;
}

/** Strips the text node after position `i` (`/^\s+/` when `multiple`, else `/^[ \t]*\r?\n?/`). */
function omitRight(body: Statement[], i: number | null, multiple = false): void {
  const current = body[i === null ? 0 : i + 1];
  if (!isContent(current) || (!multiple && current.rightStripped)) return;
  const text = current.value;
  let cut: number;
  if (multiple) cut = leadingRun(text, isSpace);
  else {
    cut = leadingRun(text, isBlank);
    if (text[cut] === '\r') cut++;
    if (text[cut] === '\n') cut++;
  }
  current.value = text.slice(cut);
  current.rightStripped = cut > 0;
}

/** Strips the text node before position `i` (`/\s+$/` when `multiple`, else `/[ \t]+$/`). */
function omitLeft(body: Statement[], i: number | null, multiple = false): boolean | undefined {
  const current = body[i === null ? body.length - 1 : i - 1];
  if (!isContent(current) || (!multiple && current.leftStripped)) return undefined;
  const text = current.value;
  const cut = trailingRun(text, multiple ? isSpace : isBlank);
  current.value = text.slice(0, cut);
  current.leftStripped = cut < text.length;
  return current.leftStripped;
}

/** The visitor: one instance per template, since only the first program seen is the root. */
class WhitespaceControl {
  private rootSeen = false;

  constructor(private readonly ignoreStandalone: boolean) {}

  program(program: Program): void {
    const isRoot = !this.rootSeen;
    this.rootSeen = true;
    const body = program.body;
    for (let i = 0; i < body.length; i++) {
      const current = body[i]!;
      const strip = this.statement(current);
      if (!strip) continue;
      const prevWhitespace = isPrevWhitespace(body, i, isRoot);
      const nextWhitespace = isNextWhitespace(body, i, isRoot);
      const openStandalone = strip.openStandalone && prevWhitespace;
      const closeStandalone = strip.closeStandalone && nextWhitespace;
      const inlineStandalone = strip.inlineStandalone && prevWhitespace && nextWhitespace;
      if (strip.close) omitRight(body, i, true);
      if (strip.open) omitLeft(body, i, true);
      if (this.ignoreStandalone) continue;
      if (inlineStandalone) {
        omitRight(body, i);
        if (omitLeft(body, i) && current.type === 'PartialStatement') {
          const before = (body[i - 1] as unknown as Content).original;
          (current as hbs.AST.PartialStatement & { indent?: string }).indent = before.slice(
            trailingRun(before, isBlank),
          );
        }
      }
      if (openStandalone) {
        const block = current as Block;
        omitRight((block.program ?? block.inverse!).body, null);
        omitLeft(body, i);
      }
      if (closeStandalone) {
        const block = current as Block;
        omitRight(body, i);
        omitLeft((block.inverse ?? block.program).body, null);
      }
    }
  }

  private statement(node: Statement): Strip | undefined {
    switch (node.type) {
      case 'BlockStatement':
      case 'DecoratorBlock':
      case 'PartialBlockStatement':
        return this.block(node as Block);
      case 'MustacheStatement':
      case 'Decorator':
        return (node as hbs.AST.MustacheStatement).strip;
      case 'PartialStatement':
      case 'CommentStatement': {
        const strip = (node as hbs.AST.CommentStatement).strip ?? {};
        return { inlineStandalone: true, open: strip.open, close: strip.close };
      }
      default:
        return undefined;
    }
  }

  private block(block: Block): Strip {
    if (block.program) this.program(block.program);
    if (block.inverse) this.program(block.inverse);
    const program = block.program ?? block.inverse!;
    const inverse = block.program ? block.inverse : undefined;
    let firstInverse = inverse;
    let lastInverse = inverse;
    if (inverse?.chained) {
      firstInverse = (inverse.body[0] as Block).program;
      while (lastInverse!.chained) lastInverse = (lastInverse!.body[lastInverse!.body.length - 1] as Block).program;
    }
    const strip: Strip = {
      open: block.openStrip.open,
      close: block.closeStrip.close,
      openStandalone: isNextWhitespace(program.body, undefined),
      closeStandalone: isPrevWhitespace((firstInverse ?? program).body, undefined),
    };
    if (block.openStrip.close) omitRight(program.body, null, true);
    if (inverse) {
      const inverseStrip = block.inverseStrip;
      if (inverseStrip.open) omitLeft(program.body, null, true);
      if (inverseStrip.close) omitRight(firstInverse!.body, null, true);
      if (block.closeStrip.open) omitLeft(lastInverse!.body, null, true);
      if (
        !this.ignoreStandalone &&
        isPrevWhitespace(program.body, undefined) &&
        isNextWhitespace(firstInverse!.body, undefined)
      ) {
        omitLeft(program.body, null);
        omitRight(firstInverse!.body, null);
      }
    } else if (block.closeStrip.open) {
      omitLeft(program.body, null, true);
    }
    return strip;
  }
}

/**
 * Applies Handlebars' whitespace control to `ast` (from `parseWithoutProcessing`) in place, in
 * time linear in the template's size, and returns it. Recursion follows block nesting: callers
 * bound the depth first (src/template/limits.ts).
 */
export function controlWhitespace(
  ast: Program,
  options: Pick<Handlebars.ParseOptions, 'ignoreStandalone'> = {},
): Program {
  new WhitespaceControl(options.ignoreStandalone === true).program(ast);
  return ast;
}
