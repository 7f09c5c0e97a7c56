/**
 * `.env.example` and the README's configuration table are generated from the example servers'
 * schema (`npm run config:docs`): these fail when either drifts from it, or when the schema and
 * the generated files disagree on which variables exist.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  README_TABLE_MARKERS,
  renderEnvExample,
  renderReadmeTable,
  withReadmeTable,
} from '../../examples/shared/config-docs.js';
import { CONFIG_VARIABLES } from '../../examples/shared/config-schema.js';

const read = (path: string) => readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), 'utf8');
const FIX = 'out of date with examples/shared/config-schema.ts: run npm run config:docs';

describe('the configuration documents generated from the schema', () => {
  it('.env.example is the one the schema renders', () => {
    expect(read('.env.example'), FIX).toBe(renderEnvExample());
  });

  it("the README's table is the one the schema renders", () => {
    const readme = read('README.md');
    expect(readme).toContain(README_TABLE_MARKERS.start);
    expect(readme, FIX).toBe(withReadmeTable(readme));
  });

  it('list every variable of the schema, once', () => {
    const names = Object.keys(CONFIG_VARIABLES);
    expect(names.length).toBeGreaterThanOrEqual(29);
    expect([...renderEnvExample().matchAll(/^# ([A-Z_]+)=/gm)].map((match) => match[1])).toEqual(names);
    expect([...renderReadmeTable().matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1])).toEqual(names);
  });

  it('give every variable a default that parses, or words for what happens when it is unset', () => {
    for (const [name, entry] of Object.entries(CONFIG_VARIABLES)) {
      expect(entry.default !== undefined || (entry.whenUnset ?? '') !== '', name).toBe(true);
      expect(entry.field.safeParse(entry.default).success, name).toBe(true);
    }
  });
});
