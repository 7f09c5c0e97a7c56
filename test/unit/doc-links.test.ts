import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SHOTS } from '../../scripts/screenshot-shots.js';

// Every relative link of the README and docs/*.md must lead to a file of the repository, and a
// `#fragment` into a Markdown file to one of its headings (GitHub's anchors), so a reader of the
// repository or of the npm package never follows a link to nothing.
const root = fileURLToPath(new URL('../..', import.meta.url));
const documents = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** Markdown link targets outside code blocks and code spans: `[text](target)` and `[label]: target`. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
  const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const references = [...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]!);
  return [...inline, ...references];
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const match of prose.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = anchorOf(match[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

function brokenLinks(document: string): string[] {
  const broken: string[] = [];
  const markdown = readFileSync(join(root, document), 'utf8');
  for (const target of linkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: — not files of the repository
    const [path = '', fragment] = target.split('#', 2);
    const file = path === '' ? join(root, document) : join(root, dirname(document), decodeURIComponent(path));
    if (!relative(root, file) || relative(root, file).startsWith('..') || !existsSync(file)) {
      broken.push(`${target} (no file ${relative(root, file) || file})`);
      continue;
    }
    if (fragment && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(fragment)) {
      broken.push(`${target} (no heading #${fragment} in ${relative(root, file)})`);
    }
  }
  return broken;
}

/** Paths of the repository named in code spans (`src/…`, `test/…`, …) that do not exist. */
function missingNamedFiles(document: string): string[] {
  const markdown = readFileSync(join(root, document), 'utf8');
  const named = [
    ...markdown.matchAll(/`((?:\.ci|adapters|bench|docs|examples|spec|src|test)\/[\w./-]+\.[a-z]+)`/g),
  ].map((m) => m[1]!);
  return named.filter((path) => !existsSync(join(root, path)) && !existsSync(join(root, dirname(document), path)));
}

/** The images `document` shows or links to, each as a path under docs/images/ (`../x.png` when outside it). */
function imagesShown(document: string): string[] {
  return linkTargets(readFileSync(join(root, document), 'utf8'))
    .filter((target) => /\.(png|jpe?g|gif|svg|webp)$/i.test(target))
    .map((target) => relative(join(root, 'docs/images'), join(root, dirname(document), target)));
}

describe('documentation links', () => {
  it('finds the documents and their links', () => {
    expect(documents).toContain('docs/storage.md');
    expect(linkTargets(readFileSync(join(root, 'README.md'), 'utf8'))).toContain('docs/storage.md');
  });

  it.each(documents)('%s links only to files (and headings) of the repository', (document) => {
    expect(brokenLinks(document)).toEqual([]);
  });

  it.each(documents)('%s names only files of the repository', (document) => {
    expect(missingNamedFiles(document)).toEqual([]);
  });

  // `npm run screenshots` (scripts/screenshots.ts) regenerates every image: one the script does not
  // take would go stale unseen, and one it takes that no page shows is dead weight in the repository.
  it('shows exactly the images `npm run screenshots` takes, each of them in docs/images/', () => {
    const shown = new Set(documents.flatMap(imagesShown));
    const taken = SHOTS.map((shot) => shot.file);
    expect([...shown].sort()).toEqual([...taken].sort());
    expect(readdirSync(join(root, 'docs/images')).sort()).toEqual([...taken].sort());
  });

  it('reports a link to a missing file or heading', () => {
    expect(linkTargets('see [x](docs/missing.md) and [y](#nowhere) but not `[z](no.md)`')).toEqual([
      'docs/missing.md',
      '#nowhere',
    ]);
    expect(anchorsOf('# Memory\n## The `send` call (v1)\n## Memory\n')).toEqual(
      new Set(['memory', 'the-send-call-v1', 'memory-1']),
    );
  });
});
