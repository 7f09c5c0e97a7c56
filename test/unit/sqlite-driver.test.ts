/**
 * The repository's better-sqlite3 (dev/better-sqlite3) is the one that works on the running Node,
 * with no manual step: 12.x on Node 20, 13.x from Node 22. On Node 24, 12.x aborts the process
 * when the garbage collector frees statements of a closed database; this runs exactly that in a
 * child process (the abort would kill vitest's worker) and checks it exits cleanly.
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

  it('survives the garbage collector freeing statements of closed databases', () => {
    const script = `
      const Database = require('better-sqlite3');
      for (let round = 0; round < 5; round++) {
        const db = new Database(':memory:');
        db.exec('create table t (a integer)');
        for (let i = 0; i < 3000; i++) db.prepare('insert into t values (' + i + ')').run();
        db.close();
        global.gc();
      }
      process.stdout.write('survived');`;
    const child = spawnSync(process.execPath, ['--expose-gc', '-e', script], { cwd: process.cwd(), encoding: 'utf8', timeout: 60_000 });
    expect({ status: child.status, signal: child.signal, stdout: child.stdout }, child.stderr).toEqual({ status: 0, signal: null, stdout: 'survived' });
  });
});
