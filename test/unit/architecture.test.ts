import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The folders of src/ form layers: a folder may lean on the ones below it, never on one that leans back,
// even through a type-only import (issue 14). This test reads the sources, so it checks what is written,
// not what the bundler keeps. That src/ imports no adapter, framework or driver is ESLint's job
// (no-restricted-imports in eslint.config.js), so it is not repeated here.

const srcRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

/** A folder-to-folder dependency, with the first file import that makes it (for the failure message). */
interface Edge {
  readonly from: string;
  readonly to: string;
  readonly fromFile: string;
  readonly toFile: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The top-level folder under src/ of a file, or null for a file directly in src/ (context.ts, index.ts, …). */
function folderOf(file: string): string | null {
  const parts = relative(srcRoot, file).split(sep);
  return parts.length > 1 ? parts[0]! : null;
}

/**
 * The relative module specifiers a file names: imports (value and `import type`), re-exports
 * (`export … from`) and `import('…')` expressions or types. TypeScript's own pre-processor reads
 * them, so comments and strings that merely look like imports are not counted.
 */
function relativeSpecifiers(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((ref) => ref.fileName).filter((name) => name.startsWith('.'));
}

function folderEdges(): Edge[] {
  const edges = new Map<string, Edge>();
  for (const file of sourceFiles(srcRoot)) {
    const from = folderOf(file);
    if (from === null) continue;
    for (const specifier of relativeSpecifiers(file)) {
      const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      const to = folderOf(target);
      if (to === null || to === from || relative(srcRoot, target).startsWith('..')) continue;
      const key = `${from}->${to}`;
      if (!edges.has(key)) {
        edges.set(key, { from, to, fromFile: relative(srcRoot, file), toFile: relative(srcRoot, target) });
      }
    }
  }
  return [...edges.values()];
}

/** Strongly connected components with more than one folder (Tarjan): each one is a cycle. */
function cycles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const edge of edges) {
    next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
    if (!next.has(edge.to)) next.set(edge.to, []);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node)!) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of [...next.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

describe('src/ folder dependencies', () => {
  it('reads the imports it is meant to check', () => {
    const edges = folderEdges();
    // A guard against a parser that silently finds nothing: these edges exist by design.
    expect(edges.some((edge) => edge.from === 'http' && edge.to === 'store')).toBe(true);
    expect(edges.some((edge) => edge.from === 'sending' && edge.to === 'model')).toBe(true);
  });

  it('has no cycle between folders, counting type-only imports and re-exports', () => {
    const edges = folderEdges();
    const report = cycles(edges).map((component) => {
      const inside = edges.filter((edge) => component.includes(edge.from) && component.includes(edge.to));
      const lines = inside.map((edge) => `    ${edge.from} -> ${edge.to}: ${edge.fromFile} imports ${edge.toFile}`);
      return [`  cycle: ${component.join(', ')}`, ...lines].join('\n');
    });
    expect(report, `folder cycles in src/:\n${report.join('\n')}`).toEqual([]);
  });
});
