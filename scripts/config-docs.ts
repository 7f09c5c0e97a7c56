/**
 * `npm run config:docs`: writes `.env.example` and the README's configuration table from the
 * example servers' schema (examples/shared/config-schema.ts). With `--check` it writes nothing and
 * exits 1 when either file differs from the schema.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderEnvExample, withReadmeTable } from '../examples/shared/config-docs.js';

const root = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));
const check = process.argv.includes('--check');
const stale: string[] = [];

for (const [path, render] of [
  ['.env.example', () => renderEnvExample()],
  ['README.md', () => withReadmeTable(readFileSync(root('README.md'), 'utf8'))],
] as const) {
  const current = (() => {
    try {
      return readFileSync(root(path), 'utf8');
    } catch {
      return '';
    }
  })();
  const wanted = render();
  if (current === wanted) continue;
  stale.push(path);
  if (!check) writeFileSync(root(path), wanted);
}

if (check && stale.length > 0) {
  process.stderr.write(
    `out of date with examples/shared/config-schema.ts: ${stale.join(', ')} (run npm run config:docs)\n`,
  );
  process.exit(1);
}
console.log(stale.length === 0 ? 'config docs: up to date' : `config docs: wrote ${stale.join(', ')}`);
