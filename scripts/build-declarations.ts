/**
 * `npm run build`, second half: the package's type declarations, one bundled `dist/<name>.d.ts` per
 * module (scripts/package-entries.ts) with shared chunks beside them, as a user's editor reads them.
 *
 * tsc writes every source's declarations once (tsconfig.build.json, into dist/.declarations), then
 * rollup-plugin-dts bundles them from those files. tsup's own `dts` option compiled the sources again
 * for each module: the whole build took 81 CPU-s and 2.7 GB here then, and about 35-38 CPU-s and
 * 0.8 GB this way, for the same files.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';
import { packageEntries } from './package-entries.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const emitted = `${root}dist/.declarations`;

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
try {
  execFileSync(process.execPath, [tsc, '-p', `${root}tsconfig.build.json`], { stdio: 'inherit' });
  const bundle = await rollup({
    input: Object.fromEntries(
      Object.entries(packageEntries).map(([name, source]) => [name, `${emitted}/${source.replace(/\.ts$/, '.d.ts')}`]),
    ),
    // Packages (node's own, dependencies, peers) stay imports; only the package's own files are bundled.
    external: (id) => !id.startsWith('.') && !id.startsWith('/'),
    plugins: [dts()],
  });
  await bundle.write({
    dir: `${root}dist`,
    format: 'es',
    // A shared chunk of `errors.d.ts` is `errors-<hash>.d.ts`, as tsup named them.
    chunkFileNames: (chunk) => `${chunk.name.replace(/\.d$/, '')}-[hash].d.ts`,
  });
  await bundle.close();
} finally {
  rmSync(emitted, { recursive: true, force: true });
}
