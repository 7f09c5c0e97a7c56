/**
 * Every shell block of the documentation, pasted in order into one terminal against one fresh
 * example server (Express, SQLite, sandbox mode), must run without an error.
 *
 * - Which blocks: every ```sh, ```bash and ```shell block of README.md, then of each page of docs/ in
 *   the order the README's "Documentation" list links them, then of the pages it does not link yet,
 *   alphabetically. A block marked `<!-- docs-test: skip — <reason> -->` (test/support/markdown-blocks.ts)
 *   is reported as skipped with its reason; its page says why in its prose.
 * - How: one bash session (variables and functions carry over, as in one terminal), each block sourced
 *   from a file of its own, in a scratch directory that stands for the reader's project (its
 *   `node_modules` is this repository's, so `npx openapi-typescript` runs offline). The reader's edits are made for them: the documented address
 *   `http://127.0.0.1:3000` becomes the server's, and the placeholder `mpak_…` the printed account key
 *   (`asPastedAgainst`); `KEY` is also set in the environment. Nothing else of a block is changed.
 * - What fails a block: a command that exits non-zero (an ERR trap reports its line, with `pipefail`, and
 *   with `errtrace` inside command substitutions, e.g. a `json` that finds no field in `$(…)`),
 *   and an error answer of the API: `curl` runs with `--fail-with-body`, so a 4xx/5xx exits 22 while the
 *   body is printed as the reader would see it; an API error body in the output (`{"code":"…","message"`)
 *   fails it too. A block that installs packages (`npm install …`) fails without being run: the scratch
 *   project's `node_modules` is this repository's, so it must be marked skip.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashSession, type BashSession } from '../support/bash-session.js';
import { asPastedAgainst, startExample, type ExampleServer } from '../support/example-server.js';
import { codeBlocks, type CodeBlock } from '../support/markdown-blocks.js';

const shellLanguages = ['sh', 'bash', 'shell'];
const knownDirectives = new Set(['skip', 'id']);

/** README.md, then docs/ pages as the README's documentation list orders them, then the others alphabetically. */
function documentationOrder(): string[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const list = readme.slice(readme.indexOf('\n## Documentation'));
  const linked = [...list.matchAll(/\]\((docs\/[a-z0-9-]+\.md)[)#]/g)].map((match) => match[1]!);
  const pages = readdirSync(new URL('../../docs', import.meta.url))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`)
    .sort();
  const ordered = [...new Set(linked.filter((page) => pages.includes(page)))];
  return ['README.md', ...ordered, ...pages.filter((page) => !ordered.includes(page))];
}

const blocks: CodeBlock[] = documentationOrder().flatMap((file) => codeBlocks(file, { languages: shellLanguages }));
const skipReason = (block: CodeBlock) => block.directives.find((directive) => directive.name === 'skip')?.value;

// Typed once into the session before the first block; see the header for why.
// `|| return` keeps the trap from firing inside the wrapper, where $LINENO is not the block's.
const prelude = [
  'set -o pipefail -o errtrace',
  'curl() { command curl --fail-with-body "$@" || return; }',
  `trap 'echo "docs-test: exit $? at line $LINENO: $BASH_COMMAND" >&2' ERR`,
].join('\n');
const apiErrorBody = /\{"code":"[A-Z_]+","message"/;
const installsPackages = /\b(?:npm|pnpm|yarn)\s+(?:install|i|ci|add|update|uninstall|remove|link)\b/;

describe('the documentation’s shell blocks, pasted in order against a fresh example server', () => {
  let server: ExampleServer;
  let bash: BashSession;
  let scratch: string;
  beforeAll(async () => {
    server = await startExample('express', { MAILPLANE_RETRY_DELAYS_MS: '200,200' });
    scratch = mkdtempSync(join(tmpdir(), 'mailplane-doc-shell-'));
    symlinkSync(fileURLToPath(new URL('../../node_modules', import.meta.url)), join(scratch, 'node_modules'));
    bash = bashSession({ KEY: server.accountKey }, { cwd: scratch });
    expect((await bash.run(prelude)).status).toBe(0);
  });
  afterAll(async () => {
    bash?.close();
    await server?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('marks blocks only with known directives, skips give a reason, and few are skipped', () => {
    expect(blocks.length).toBeGreaterThan(10);
    for (const block of blocks) {
      for (const directive of block.directives) {
        expect(knownDirectives.has(directive.name), `${block.where}: unknown directive ${directive.name}`).toBe(true);
      }
      if (block.directives.some((directive) => directive.name === 'skip')) {
        expect(skipReason(block), `${block.where}: a skip needs a reason`).not.toBe('');
      }
    }
    // "Few": most of what a reader pastes must be checked here (7 of 23 were skipped when this was written).
    expect(blocks.filter(skipReason).length).toBeLessThanOrEqual(blocks.length / 3);
  });

  for (const [index, block] of blocks.entries()) {
    const reason = skipReason(block);
    if (reason !== undefined) {
      it.skip(`${block.where} (skipped: ${reason})`, () => {});
      continue;
    }
    it(`${block.where} runs`, { timeout: 90_000 }, async () => {
      expect(block.code, `${block.where} installs packages: mark it docs-test: skip`).not.toMatch(installsPackages);
      const file = join(scratch, `${String(index).padStart(3, '0')}.sh`);
      writeFileSync(file, asPastedAgainst(block.code, server));
      const { output } = await bash.run(`source ${file}`, { timeoutMs: 60_000 });
      const lines = block.code.split('\n');
      // The trap also fires for the `source` line itself (the session's line, not the block's): left out.
      const failures = [...output.matchAll(/docs-test: exit (\d+) at line (\d+): (.*)/g)]
        .filter(([, , , command]) => !command!.startsWith(`source ${file}`))
        .map(
          ([, status, line]) =>
            `${block.file}:${block.line + Number(line)}: exit ${status}: ${lines[Number(line) - 1]}`,
        );
      if (failures.length === 0 && apiErrorBody.test(output)) failures.push(`${block.where}: an API error answer`);
      expect(failures, `${block.where} failed:\n${failures.join('\n')}\noutput:\n${output}`).toEqual([]);
    });
  }
});
