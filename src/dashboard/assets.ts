/**
 * The dashboard's static files: read from `dashboard-assets/` next to the built module (the
 * package), or, when that folder is absent (running from source), bundled from the sources once.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { HttpResponse } from '../http/types.js';

/** The files the handler serves under `assets/`, with their content types. */
export const ASSET_TYPES: Readonly<Record<string, string>> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/** One served file: its text and the strong ETag of it. */
interface Asset {
  body: string;
  etag: string;
}

/** Reads the built files, or bundles the sources when the package was not built. */
async function loadFiles(): Promise<Map<string, string>> {
  const dir = new URL('./dashboard-assets/', import.meta.url);
  try {
    const names = Object.keys(ASSET_TYPES);
    const texts = await Promise.all(names.map((name) => readFile(new URL(name, dir), 'utf8')));
    return new Map(names.map((name, i) => [name, texts[i]!]));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const { bundleDashboardUi } = await import('./build-assets.js');
    return bundleDashboardUi();
  }
}

/** The assets of one handler, loaded on first use and kept. */
export class DashboardAssets {
  private loading: Promise<Map<string, Asset>> | undefined;

  private load(): Promise<Map<string, Asset>> {
    this.loading ??= loadFiles().then(
      (files) =>
        new Map(
          [...files].map(([name, body]) => [
            name,
            { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` },
          ]),
        ),
    );
    // a failed load (an unreadable file) is retried by the next request rather than kept
    this.loading.catch(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  /** The response for `assets/<name>`, or `null` for a name that is no asset. */
  async respond(name: string, ifNoneMatch: string | undefined): Promise<HttpResponse | null> {
    const type = Object.hasOwn(ASSET_TYPES, name) ? ASSET_TYPES[name] : undefined;
    if (!type) return null;
    const asset = (await this.load()).get(name);
    if (!asset) return null;
    const headers = {
      'content-type': type,
      etag: asset.etag,
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
    };
    if (ifNoneMatch === asset.etag) return { status: 304, headers, body: '' };
    return { status: 200, headers, body: asset.body };
  }
}
