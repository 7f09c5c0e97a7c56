/**
 * The repository's better-sqlite3 (dev/better-sqlite3) is the one that works on the running Node,
 * with no manual step: 12.x on Node 20, 13.x from Node 22. On Node 24, 12.x aborts the process
 * when statements are freed (by the garbage collector, or at exit with the database open); this
 * runs exactly that in a child process (the abort would kill vitest's worker) and checks it exits
 * cleanly.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const major = Number(process.versions.node.split('.')[0]);

describe(`better-sqlite3 on Node ${process.versions.node}`, () => {
  it('is the release line made for this Node', () => {
    const { version } = require('better-sqlite3/package.json') as { version: string };
    expect(version).toBe('0.0.0-dev');
    const loaded = require.resolve('better-sqlite3-node' + (major >= 22 ? '22' : '20'));
    expect(loaded).toMatch(/better-sqlite3-node(20|22)/);
    const driver = require('better-sqlite3') as unknown;
    expect(driver).toBe(require(major >= 22 ? 'better-sqlite3-node22' : 'better-sqlite3-node20'));
  });

  it('survives statements freed at exit with the database open', () => {
    // 12.x on Node 24 aborts here ("Assertion failed: (env) != nullptr" in Statement::~Statement;
    // checked: SIGABRT). Not with --expose-gc, which changes the teardown.
    const script = `
      const Database = require('better-sqlite3');
      const db = new Database(':memory:');
      for (let i = 0; i < 10000; i++) db.prepare('select ' + i).get();
      console.log('survived');`;
    const child = spawnSync(process.execPath, ['-e', script], {
      cwd: process.cwd(),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect({ status: child.status, signal: child.signal, stdout: child.stdout }, child.stderr).toEqual({
      status: 0,
      signal: null,
      stdout: 'survived\n',
    });
  });
});
