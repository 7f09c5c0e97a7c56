import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The folders of src/ form layers: a folder may lean on the ones below it, never on one that leans back,
// even through a type-only import (issue 14), and no file of src/ leans on itself through others either
// (issue 26). State belongs to the objects an instance owns, never to a module (issue 26). This test
// reads the sources, so it checks what is written, not what the bundler keeps. That src/ imports no
// adapter, framework or driver is ESLint's job (no-restricted-imports in eslint.config.js), so it is
// not repeated here.

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const srcRoot = join(repoRoot, 'src');

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

/** The files of src/ a file imports (value, type-only, re-export or `import()`), as absolute paths. */
function importedFiles(file: string): string[] {
  return relativeSpecifiers(file).map((specifier) => resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
}

/** Every file-to-file dependency inside src/, keyed by the importing file (paths relative to src/). */
function fileEdges(): Edge[] {
  return sourceFiles(srcRoot).flatMap((file) =>
    importedFiles(file)
      .filter((target) => !relative(srcRoot, target).startsWith('..'))
      .map((target) => {
        const from = relative(srcRoot, file);
        const to = relative(srcRoot, target);
        return { from, to, fromFile: from, toFile: to };
      }),
  );
}

function folderEdges(): Edge[] {
  const edges = new Map<string, Edge>();
  for (const file of sourceFiles(srcRoot)) {
    const from = folderOf(file);
    if (from === null) continue;
    for (const target of importedFiles(file)) {
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

/** Strongly connected components with more than one node (Tarjan): each one is a cycle. */
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
    const report = cycleReport(folderEdges());
    expect(report, `folder cycles in src/:\n${report.join('\n')}`).toEqual([]);
  });
});

/** Each cycle of `edges` with the imports that close it, one line each (for the failure message). */
function cycleReport(edges: readonly Edge[]): string[] {
  return cycles(edges).map((component) => {
    const inside = edges.filter((edge) => component.includes(edge.from) && component.includes(edge.to));
    const lines = inside.map((edge) =>
      edge.from === edge.fromFile
        ? `    ${edge.from} imports ${edge.to}`
        : `    ${edge.from} -> ${edge.to}: ${edge.fromFile} imports ${edge.toFile}`,
    );
    return [`  cycle: ${component.join(', ')}`, ...lines].join('\n');
  });
}

describe('src/ file dependencies', () => {
  it('reads the imports it is meant to check, type-only ones and re-exports included', () => {
    const edges = fileEdges();
    const has = (from: string, to: string) => edges.some((edge) => edge.from === from && edge.to === to);
    // Guards against a reader that misses a kind of import: these exist by design.
    expect(has('context.ts', join('http', 'route.ts'))).toBe(true); // import type
    expect(has(join('store', 'index.ts'), join('store', 'message-store.ts'))).toBe(true); // export type * from
    expect(has('mailplane.ts', join('template', 'renderer.ts'))).toBe(true); // a value import
  });

  it('has no cycle between files, counting type-only imports and re-exports', () => {
    const report = cycleReport(fileEdges());
    expect(report, `file cycles in src/:\n${report.join('\n')}`).toEqual([]);
  });

  it('finds a cycle that runs only through type-only imports', () => {
    // The same reader on a made-up pair: a.ts imports a type of b.ts, which re-exports one of a.ts.
    const edges: Edge[] = [
      { from: 'a.ts', to: 'b.ts', fromFile: 'a.ts', toFile: 'b.ts' },
      { from: 'b.ts', to: 'a.ts', fromFile: 'b.ts', toFile: 'a.ts' },
      { from: 'b.ts', to: 'c.ts', fromFile: 'b.ts', toFile: 'c.ts' },
    ];
    expect(cycles(edges)).toEqual([['a.ts', 'b.ts']]);
    const specifiers = ts.preProcessFile(
      "import type { B } from './b.js';\nexport type { A } from './a.js';\ntype C = import('./c.js').C;",
      true,
      true,
    );
    expect(specifiers.importedFiles.map((ref) => ref.fileName)).toEqual(['./b.js', './a.js', './c.js']);
  });
});

/**
 * Module-level declarations that hold state: every `let` or `var`, and every `Map`, `Set`, `WeakMap`
 * or `WeakSet` not typed `ReadonlyMap` or `ReadonlySet` (a lookup table built once, which the
 * compiler then keeps anyone from writing). Such state would be shared by every instance of the
 * process and outlive them; it belongs to an object the instance owns instead.
 */
function moduleState(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const isConst = (statement.declarationList.flags & ts.NodeFlags.BlockScoped) === ts.NodeFlags.Const;
    for (const declaration of statement.declarationList.declarations) {
      const name = declaration.name.getText(source);
      if (!isConst) {
        found.push(`${name} (a module-level let or var)`);
        continue;
      }
      let value = declaration.initializer;
      while (
        value &&
        (ts.isAsExpression(value) ||
          ts.isSatisfiesExpression(value) ||
          ts.isParenthesizedExpression(value) ||
          ts.isNonNullExpression(value))
      )
        value = value.expression;
      if (!value || !ts.isNewExpression(value) || !ts.isIdentifier(value.expression)) continue;
      const made = value.expression.text;
      if (!['Map', 'Set', 'WeakMap', 'WeakSet'].includes(made)) continue;
      if (declaration.type && /^Readonly(Map|Set)</.test(declaration.type.getText(source))) continue;
      found.push(`${name} (a module-level ${made})`);
    }
  }
  return found;
}

/** The few module-level declarations that hold no instance's state, each with the reason. */
const MODULE_STATE_ALLOWED: Record<string, string> = {
  'adapters/transport/smtp/dot-stuffing.ts stuffedParts':
    'a memo of a pure function (the dot-stuffed slices of a part), held weakly by the immutable buffer it describes: ' +
    'an entry lives as long as its buffer and reads the same for whoever asks, and the body a bulk batch shares is ' +
    'scanned once for all the connections and transports that send it',
  'src/sandbox/dns-server.ts TYPE_NAMES':
    'a constant lookup table (dns2 type codes to names), built once when the module loads and never written',
};

describe('module-level state in src/ and adapters/', () => {
  const files = [...sourceFiles(srcRoot), ...sourceFiles(join(repoRoot, 'adapters'))];
  const found = files.flatMap((file) => {
    const path = relative(repoRoot, file).split(sep).join('/');
    return moduleState(path, readFileSync(file, 'utf8')).map((what) => ({
      path,
      key: `${path} ${what.split(' ')[0]!}`,
      what,
    }));
  });

  it('recognises a let, a Map, a Set and a WeakMap, and lets a read-only lookup table be', () => {
    const text = [
      'let count = 0;',
      'const cache = new Map<string, number>();',
      'const seen = new Set() as Set<string>;',
      'const memo = new WeakMap<object, string>();',
      "const CODES: ReadonlySet<string> = new Set(['a']);",
      'const LIMIT = 10;',
      'function f() { let local = 0; return local; }',
    ].join('\n');
    expect(moduleState('example.ts', text)).toEqual([
      'count (a module-level let or var)',
      'cache (a module-level Map)',
      'seen (a module-level Set)',
      'memo (a module-level WeakMap)',
    ]);
  });

  it('has none but the allowed ones, each with its reason', () => {
    const report = found
      .filter((entry) => !(entry.key in MODULE_STATE_ALLOWED))
      .map((entry) => `  ${entry.path}: ${entry.what}`);
    expect(report, `module-level state (move it onto an object the instance owns):\n${report.join('\n')}`).toEqual([]);
  });

  it('allows nothing that is gone', () => {
    const stale = Object.keys(MODULE_STATE_ALLOWED).filter((key) => !found.some((entry) => entry.key === key));
    expect(stale).toEqual([]);
  });
});

/**
 * The files that may name the whole instance (`MailplaneContext`): the composition root, which builds
 * it and hands each service and job the part it uses. Every other module declares what it uses in an
 * interface of its own (issue 26).
 */
const COMPOSITION_ROOT = ['context.ts', 'mailplane.ts', 'background.ts', 'instance-context.ts'];

/** Where a file's code names `MailplaneContext` as a type (a comment that mentions it does not count), as `line: text`. */
function contextTypeUses(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const named =
      (ts.isTypeReferenceNode(node) && node.typeName.getText(source).endsWith('MailplaneContext')) ||
      (ts.isImportTypeNode(node) && node.qualifier?.getText(source) === 'MailplaneContext');
    if (named) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${line + 1}: ${node.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("the instance's context", () => {
  const inRoot = (path: string) => COMPOSITION_ROOT.includes(path);

  it('recognises the context named as a type, picked from, or imported inline, and not in a comment', () => {
    const text = [
      '/** Takes a MailplaneContext. */',
      'function a(ctx: MailplaneContext) {}',
      "function b(ctx: Pick<MailplaneContext, 'store'>) {}",
      "type C = import('./context.js').MailplaneContext;",
    ].join('\n');
    expect(contextTypeUses('example.ts', text)).toEqual([
      '2: MailplaneContext',
      '3: MailplaneContext',
      "4: import('./context.js').MailplaneContext",
    ]);
    expect(contextTypeUses('mailplane.ts', readFileSync(join(srcRoot, 'mailplane.ts'), 'utf8'))).not.toEqual([]);
  });

  it('is named by no signature outside the composition root', () => {
    const report = sourceFiles(srcRoot)
      .map((file) => relative(srcRoot, file).split(sep).join('/'))
      .filter((path) => !inRoot(path))
      .flatMap((path) =>
        contextTypeUses(path, readFileSync(join(srcRoot, path), 'utf8')).map((use) => `  ${path}:${use}`),
      );
    expect(
      report,
      `MailplaneContext outside the composition root (name what the code uses):\n${report.join('\n')}`,
    ).toEqual([]);
  });

  it('is imported only by the composition root', () => {
    const importers = fileEdges()
      .filter((edge) => edge.to === 'context.ts')
      .map((edge) => edge.from.split(sep).join('/'));
    expect(importers.length).toBeGreaterThan(0);
    expect(importers.filter((path) => !inRoot(path))).toEqual([]);
  });
});
