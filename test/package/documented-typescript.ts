/**
 * Every TypeScript block of README.md and docs/ compiles in a user's project against the packed
 * tarball (test/support/consumer-project.ts), and the README's library example runs there.
 *
 * A block is a file of the user's, as pasted. A block that continues an earlier one names what it
 * takes as given in its directive comment, e.g. `<!-- docs-test: given mailplane, app -->`: each
 * name is declared (not built) in front of the block, from {@link givens}. The vocabulary beside
 * `given` is test/support/markdown-blocks.ts's (`skip — reason`, `id name`).
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codeBlocks, type CodeBlock } from '../support/markdown-blocks.js';
import type { ConsumerProject } from '../support/consumer-project.js';

/** What a block may take as given: the names a reader has from the page's earlier blocks or prose. */
const givens: Record<string, string> = {
  mailplane: "import type { Mailplane } from 'mailplane';\ndeclare const mailplane: Mailplane;",
  store: "import type { MailplaneStore } from 'mailplane';\ndeclare const store: MailplaneStore;",
  secret: 'declare const secret: string;',
  transport: "import type { Transport } from 'mailplane';\ndeclare const transport: Transport;",
  app: "import type { Express } from 'express';\ndeclare const app: Express;",
  koa: "import type Koa from 'koa';\ndeclare const app: Koa;",
  requireStaffLogin: "import type { RequestHandler } from 'express';\ndeclare const requireStaffLogin: RequestHandler;",
  openMyStore:
    "import type { MailplaneStore } from 'mailplane';\n" +
    'declare function openMyStore(options: object): Promise<MailplaneStore>;\n' +
    'declare function freshDatabaseName(): string;',
};

const typescript = ['ts', 'typescript'];

/** The documented pages: the README, then docs/ in name order. */
export function documentedPages(): string[] {
  const docs = readdirSync(new URL('../../docs', import.meta.url)).filter((name) => name.endsWith('.md'));
  return ['README.md', ...docs.sort().map((name) => `docs/${name}`)];
}

/** The TypeScript blocks of the documented pages, with their given names checked. */
export function documentedTypeScript(): CodeBlock[] {
  const blocks = documentedPages().flatMap((page) => codeBlocks(page, { languages: typescript }));
  for (const block of blocks) {
    for (const directive of block.directives) {
      if (!['given', 'skip', 'id'].includes(directive.name))
        throw new Error(`${block.where}: unknown docs-test directive "${directive.name}"`);
    }
  }
  return blocks;
}

/** The names a block's `given` directives list. */
function givenNames(block: CodeBlock): string[] {
  return block.directives
    .filter((directive) => directive.name === 'given')
    .flatMap((directive) => directive.value.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/** The file a block becomes in the project: its page and line, e.g. `docs-webhooks-md-120.ts`. */
export function snippetFileName(block: CodeBlock): string {
  return `${block.file.replace(/[^a-z0-9]+/gi, '-')}-${block.line}.ts`.toLowerCase();
}

/** The block as a module of the project: its givens' declarations, then its code as written. */
export function snippetSource(block: CodeBlock): { text: string; preludeLines: number } {
  const prelude = givenNames(block).map((name) => {
    const declaration = givens[name];
    if (!declaration)
      throw new Error(`${block.where}: "given ${name}" is not one of ${Object.keys(givens).join(', ')}`);
    return declaration;
  });
  // `export {}` makes a block without imports a module too: blocks never share a scope.
  const head = [...prelude, 'export {};'].join('\n');
  return { text: `${head}\n${block.code}`, preludeLines: head.split('\n').length };
}

/**
 * The suite: writes every block into `project()` (created by the caller from the packed tarball),
 * compiles them together, and reports each error at its page and line.
 */
export function describeDocumentedTypeScript(project: () => ConsumerProject): void {
  describe('the documented TypeScript, in a project that installed the tarball', () => {
    it('compiles every block of README.md and docs/ as written', async () => {
      const blocks = documentedTypeScript().filter((block) => !block.directives.some((d) => d.name === 'skip'));
      expect(blocks.length).toBeGreaterThan(20);
      const byFile = new Map<string, { block: CodeBlock; preludeLines: number }>();
      for (const block of blocks) {
        const { text, preludeLines } = snippetSource(block);
        const name = snippetFileName(block);
        byFile.set(`src/${name}`, { block, preludeLines });
        await project().write(name, text);
      }
      const errors = (await project().compile()).map((error) => {
        const source = byFile.get(error.file);
        if (!source) return `${error.file}:${error.line} ${error.message}`;
        // The line in the page: the fence's line, plus the line within the block.
        return `${source.block.file}:${source.block.line + error.line - source.preludeLines} ${error.message}`;
      });
      expect(errors).toEqual([]);
    });
  });
}
