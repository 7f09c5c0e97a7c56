/**
 * Bundles the dashboard's browser code (src/dashboard/ui/) with esbuild into one script and one
 * style sheet. `npm run build` writes them into `dist/dashboard-assets/` (tsup.config.ts), so the
 * published package needs no build step and no network; run from source (tests, `npm start`), the
 * handler calls this on its first asset request instead (see assets.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The bundled files by name (`app.js`, `app.css`). */
export type AssetFiles = Map<string, string>;

/** The UI's entry module, next to this file in the sources. */
const DEFAULT_ENTRY = fileURLToPath(new URL('./ui/main.ts', import.meta.url));

/** Bundles the UI in memory: minified ES2020 for current browsers, no source maps shipped. */
export async function bundleDashboardUi(entry: string = DEFAULT_ENTRY): Promise<AssetFiles> {
  // esbuild is a development dependency: loaded only when building, never by the published package.
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: { app: entry },
    bundle: true,
    format: 'esm',
    minify: true,
    target: 'es2020',
    write: false,
    outdir: 'out',
    legalComments: 'none',
    logLevel: 'silent',
  });
  return new Map(result.outputFiles.map((file) => [file.path.slice(file.path.lastIndexOf('/') + 1), file.text]));
}

/** Bundles the UI and writes it into `dir` (the package build's `dist/dashboard-assets`). */
export async function writeDashboardAssets(dir: string, entry?: string): Promise<void> {
  const files = await bundleDashboardUi(entry);
  await mkdir(dir, { recursive: true });
  for (const [name, text] of files) await writeFile(join(dir, name), text);
}
