import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createConsumerProject,
  packFreshCheckout,
  repositoryRoot,
  type ConsumerProject,
  type PackedTarball,
} from '../support/consumer-project.js';
import { describeDocumentedTypeScript } from './documented-typescript.js';
import { describeLibraryExample } from './library-example.js';

// The published package as a user gets it: `npm pack` of a fresh checkout (its `prepack` builds),
// unpacked into a user's project (test/support/consumer-project.ts) and imported by name there, in
// fresh Node processes, never the sources. One pack serves every test of this file.
const root = repositoryRoot;
const run = promisify(execFile);
let cwd = root;

async function node(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

// A resolve hook that answers every import of vitest as "not installed", as in an application
// that tests with another runner.
const withoutVitest = `data:text/javascript,${encodeURIComponent(`
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`
export async function resolve(specifier, context, next) {
  if (specifier === 'vitest') throw Object.assign(new Error("Cannot find package 'vitest'"), { code: 'ERR_MODULE_NOT_FOUND' });
  return next(specifier, context);
}\`));
`)}`;

/** One export every subpath must offer, to tell a real module from an empty one. */
const expected: Record<string, string> = {
  '.': 'createMailplane',
  './storage/kysely': 'openKyselyStore',
  './transport/smtp': 'mxTransport',
  './node': 'toNodeHandler',
  './express': 'toExpress',
  './koa': 'toKoa',
  './testing': 'createMemoryStore',
  './dashboard': 'createDashboard',
  './client': 'createMailplaneClient',
};

let tarball: PackedTarball;
let project: ConsumerProject;
let packDirectory: string;

beforeAll(async () => {
  packDirectory = await mkdtemp(join(tmpdir(), 'mailplane-pack-'));
  tarball = await packFreshCheckout(packDirectory);
  project = await createConsumerProject(tarball.path);
  cwd = project.dir;
}, 600_000);
afterAll(async () => {
  await project?.remove();
  await rm(packDirectory, { recursive: true, force: true });
});

describe('the built package', () => {
  let subpaths: string[] = [];

  beforeAll(async () => {
    const manifest = JSON.parse(await readFile(`${root}/package.json`, 'utf8')) as { exports: Record<string, unknown> };
    subpaths = Object.keys(manifest.exports);
  });

  it('is built by npm pack in a checkout that was never built (prepack), with every file the exports map names', async () => {
    const manifest = JSON.parse(await readFile(`${root}/package.json`, 'utf8')) as {
      exports: Record<string, Record<string, string>>;
      bin: Record<string, string>;
    };
    const targets = [
      ...Object.values(manifest.exports).flatMap((conditions) => Object.values(conditions)),
      ...Object.values(manifest.bin),
    ];
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) expect(tarball.files, target).toContain(target.replace(/^\.\//, ''));
  });

  it('offers a default condition on every subpath, and the test knows every subpath', async () => {
    const manifest = JSON.parse(await readFile(`${root}/package.json`, 'utf8')) as {
      exports: Record<string, Record<string, string>>;
    };
    for (const [subpath, conditions] of Object.entries(manifest.exports)) {
      expect(conditions.default, subpath).toMatch(/^\.\/dist\/.+\.js$/);
      expect(expected[subpath], subpath).toBeDefined();
    }
  });

  it('can be required (Node 20.19+ requires ES modules), mailplane/testing failing with why', async () => {
    for (const subpath of subpaths) {
      const specifier = `mailplane${subpath.slice(1)}`;
      const result = await node(['-e', `console.log(Object.keys(require(${JSON.stringify(specifier)})).join(','))`]);
      if (subpath === './testing') {
        // vitest is loaded with a top-level await (see src/testing/vitest.ts), which require cannot wait for
        expect(result.code, specifier).not.toBe(0);
        expect(result.stderr).toMatch(
          /require\(\) cannot be used on an ESM graph with top-level await\. Use import\(\) instead/,
        );
        continue;
      }
      expect(result.stderr, specifier).toBe('');
      expect(result.code, specifier).toBe(0);
      expect(result.stdout.trim().split(','), specifier).toContain(expected[subpath]);
    }
  });

  it('can be imported on every subpath', async () => {
    for (const subpath of subpaths) {
      const specifier = `mailplane${subpath.slice(1)}`;
      const result = await node([
        '--input-type=module',
        '-e',
        `console.log(Object.keys(await import(${JSON.stringify(specifier)})).join(','))`,
      ]);
      expect(result.stderr, specifier).toBe('');
      expect(result.stdout.trim().split(','), specifier).toContain(expected[subpath]);
    }
  });

  it('builds mailplane/client for any runtime with fetch: it imports openapi-fetch and nothing else', async () => {
    const source = await readFile(`${project.dir}/node_modules/mailplane/dist/client.js`, 'utf8');
    const imports = [...source.matchAll(/^import\s[^'"]*['"]([^'"]+)['"]/gm)].map((match) => match[1]);
    expect(imports).toEqual(['openapi-fetch']);
  });

  it('gives createMemoryStore and captureTransport without vitest; runStoreConformance says it needs vitest', async () => {
    const script = `
      import { createMailplane } from 'mailplane';
      import { captureTransport, createMemoryStore, runStoreConformance } from 'mailplane/testing';
      const transport = captureTransport();
      const mailplane = createMailplane({ store: createMemoryStore(), secret: 'a test secret of at least 32 characters', transport });
      const { generatedApiKey } = await mailplane.ensureAccount();
      console.log('account key', generatedApiKey.slice(0, 5));
      try { runStoreConformance({ name: 'x', create: createMemoryStore }); } catch (error) { console.log(error.message); }
      await mailplane.close();
    `;
    const result = await node(['--import', withoutVitest, '--input-type=module', '-e', script]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('account key mpak_');
    expect(result.stdout).toContain(
      'runStoreConformance needs vitest, an optional peer dependency of mailplane/testing (npm install --save-dev vitest)',
    );
  });
});

describeDocumentedTypeScript(() => project);
describeLibraryExample(() => project);
