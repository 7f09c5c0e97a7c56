/**
 * Reads the fenced code blocks of a Markdown file, for the tests that run or compile the
 * documentation as written.
 *
 * A block may carry directives for those tests in HTML comments on the lines above its opening
 * fence (blank lines between are allowed; invisible on GitHub and in typedoc's pages, so the page's
 * prose must say what a reader needs to know, e.g. why a block is not for pasting on a laptop):
 *
 * ```md
 * <!-- docs-test: skip — needs a public DNS name for the domain -->
 * ```sh
 * ```
 *
 * The vocabulary: one directive per comment, `docs-test:` then a keyword and an optional value after
 * `—`, `:` or a space, running to the end of the comment (several directives: several comments):
 *
 * - `skip — <reason>`: the block is not run; the reason (required) is shown in the test report. For
 *   blocks that need what a laptop does not have: another host, a production DNS name, a long
 *   benchmark, a server of its own.
 * - `id <name>`: a stable name other tests look the block up by (`codeBlock(path, 'quick-start')`).
 *
 * Other tests may add keywords of their own (e.g. for TypeScript blocks); each consumer rejects
 * keywords it does not know, so that a typo never silently turns a check off.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** One directive of a block's `<!-- docs-test: … -->` comment. */
export interface BlockDirective {
  /** The keyword: `skip`, `id`, … */
  name: string;
  /** What follows it (`skip`'s reason, `id`'s name); `''` when nothing does. */
  value: string;
}

/** A fenced code block as written in a Markdown file. */
export interface CodeBlock {
  /** The info string's first word (`sh`, `ts`, …); `''` for a bare fence. */
  language: string;
  /** The file, relative to the repository root (`README.md`, `docs/webhooks.md`). */
  file: string;
  /** The 1-based line of the opening fence. */
  line: number;
  /** The block's text between the fences, ending with a newline; indentation of an indented fence removed. */
  code: string;
  /** The one-line HTML comments right above the fence (blank lines between allowed), in page order, without `<!--`/`-->`. */
  comments: string[];
  /** Their `docs-test:` directives; empty when there are none. */
  directives: BlockDirective[];
  /** `file:line`, for reports. */
  where: string;
}

/** Which blocks {@link codeBlocks} returns. */
export interface CodeBlockFilter {
  /** Info-string languages to keep (e.g. `['sh', 'bash', 'shell']`); all when omitted. */
  languages?: readonly string[];
}

const fence = /^( {0,3})(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const directiveComment = /^docs-test:\s*([\s\S]*)$/;

/** Reads the directive of one comment's text (`docs-test: skip — needs DNS`); `undefined` when it has none. */
export function parseDirective(comment: string): BlockDirective | undefined {
  const body = directiveComment.exec(comment.trim())?.[1];
  if (body === undefined) return undefined;
  const match = /^([a-z][a-z0-9-]*)\s*(?:[—:]\s*|\s+|$)([\s\S]*)$/i.exec(body.trim());
  if (!match) throw new Error(`unreadable docs-test directive: ${comment}`);
  return { name: match[1]!.toLowerCase(), value: match[2]!.trim() };
}

/** The fenced code blocks of a Markdown file (a path relative to the repository root, or absolute), in order. */
export function codeBlocks(path: string, filter: CodeBlockFilter = {}): CodeBlock[] {
  const absolute = path.startsWith('/') ? path : `${root}/${path}`;
  const file = relative(root, absolute);
  const lines = readFileSync(absolute, 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = fence.exec(lines[i]!);
    if (!open) continue;
    const [, indent, marker, language] = open as unknown as [string, string, string, string];
    const body: string[] = [];
    let j = i + 1;
    const closes = (text: string) =>
      text.trimStart().startsWith(marker) && text.trim().replaceAll(marker[0]!, '') === '';
    for (; j < lines.length && !closes(lines[j]!); j++) {
      body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!.trimStart());
    }
    const comments: string[] = [];
    for (let above = i - 1; above >= 0; above--) {
      if (lines[above]!.trim() === '') continue;
      const comment = /^\s*<!--([\s\S]*?)-->\s*$/.exec(lines[above]!)?.[1];
      if (comment === undefined) break;
      comments.unshift(comment.trim());
    }
    blocks.push({
      language: language.toLowerCase(),
      file,
      line: i + 1,
      code: body.length === 0 ? '' : `${body.join('\n')}\n`,
      comments,
      directives: comments.map(parseDirective).filter((directive) => directive !== undefined),
      where: `${file}:${i + 1}`,
    });
    i = j;
  }
  return filter.languages ? blocks.filter((block) => filter.languages!.includes(block.language)) : blocks;
}

/** The block of `path` named by an `id <name>` directive; throws when there is none or several. */
export function codeBlock(path: string, id: string): CodeBlock {
  const found = codeBlocks(path).filter((block) =>
    block.directives.some((directive) => directive.name === 'id' && directive.value === id),
  );
  if (found.length !== 1) throw new Error(`${path} has ${found.length} blocks with "docs-test: id ${id}", not 1`);
  return found[0]!;
}
