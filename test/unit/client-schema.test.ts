import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_SCHEMA_PATH, renderClientSchema } from '../../scripts/client-types.js';

// The typed client's types are generated from the OpenAPI document the router serves; a route or
// schema changed without `npm run client:types` would leave mailplane/client typing the old API.
describe('client/schema.ts', () => {
  it('is what openapi-typescript makes of the served OpenAPI document (npm run client:types)', async () => {
    expect(readFileSync(CLIENT_SCHEMA_PATH, 'utf8')).toBe(await renderClientSchema());
  });
});
