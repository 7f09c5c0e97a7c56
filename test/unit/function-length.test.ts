import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The orchestrators read as a sequence of named steps (issue 26): each step a function short
// enough to read on one screen, with a TSDoc line saying what it decides. This test holds the
// files listed below to that; add a file here when it becomes such an orchestrator.

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The files whose every function stays within {@link MAX_FUNCTION_LINES}, each with what it orchestrates. */
const SHORT_FUNCTION_FILES: Record<string, string> = {
  'src/sending/accept.ts': 'acceptSend: checks, recipients and drops, the batch, one commit',
  'src/sending/accept-records.ts': 'the batch, messages, events, counters and response entries of a send',
  'src/delivery/deliver.ts': 'deliverOne: route, compose, send, record, release',
};

/** The most lines a function body may take, its braces included. */
const MAX_FUNCTION_LINES = 40;

/** Every function of a source text (declarations, methods, accessors, arrows, expressions) with its body's length in lines. */
function functionLengths(path: string, text: string): { name: string; line: number; lines: number }[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const found: { name: string; line: number; lines: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const body = node.body as ts.Node;
      found.push({
        name: functionName(node, source),
        line: lineOf(node.getStart(source)),
        lines: lineOf(body.getEnd()) - lineOf(body.getStart(source)) + 1,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A function's name as a reader finds it: its own, or the variable or property it is assigned to. */
function functionName(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) {
    return parent.name.getText(source);
  }
  return '(anonymous)';
}

describe('short functions in the orchestrator files', () => {
  it('measures every kind of function, its body from brace to brace', () => {
    const body = (lines: number) => Array.from({ length: lines - 2 }, (_, i) => `  step${i}();`).join('\n');
    const text = [
      `function long() {\n${body(41)}\n}`,
      `function fits() {\n${body(40)}\n}`,
      `const arrow = async () => {\n${body(41)}\n};`,
      `class C {\n  method() {\n${body(41)}\n  }\n}`,
      `const table = { build: function () {\n${body(3)}\n} };`,
    ].join('\n');
    const long = functionLengths('example.ts', text).map(({ name, lines }) => `${name} ${lines}`);
    expect(long).toEqual(['long 41', 'fits 40', 'arrow 41', 'method 41', 'build 3']);
  });

  it.each(Object.keys(SHORT_FUNCTION_FILES))(`%s has no function over ${MAX_FUNCTION_LINES} lines`, (file) => {
    const lengths = functionLengths(file, readFileSync(join(repoRoot, file), 'utf8'));
    expect(lengths.length).toBeGreaterThan(0);
    const over = lengths
      .filter(({ lines }) => lines > MAX_FUNCTION_LINES)
      .map(({ name, line, lines }) => `  ${file}:${line} ${name}: ${lines} lines`);
    expect(over, `split these into named steps:\n${over.join('\n')}`).toEqual([]);
  });
});
