/**
 * The secrets in API answers (src/http/route-secrets.ts): every route whose answer can carry a key,
 * a password or a signing secret declares it, and a request marked `hideStoredSecrets` (the
 * dashboard's) gets the stored ones as `null` while the answer that made them shows them.
 */
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { apiRoutes } from '../../src/http/routes/index.js';
import { RawJson } from '../../src/http/json.js';
import { route, type AnyRoute } from '../../src/http/route.js';
import { withStoredSecretsHidden } from '../../src/http/route-secrets.js';
import type { HttpRequest } from '../../src/http/types.js';

/** A string member named like a secret. */
const SECRET_NAME = /^(apiKey|password|secret|token)$|(ApiKey|Password|Secret|Token)$/;

/**
 * Members named like a secret that hold none: a third-party provider's `secret` and `oauthToken`
 * are the reference's fields, always empty (its password is never answered, `hasPassword` says
 * whether one is stored: src/ip/wire.ts).
 */
const NOT_SECRETS: Readonly<Record<string, readonly string[]>> = {
  '/account/tpsp': ['secret', 'oauthToken'],
  '/account/tpsp/:tpsp_id': ['secret', 'oauthToken'],
  '/account/ippool': ['secret', 'oauthToken'],
  '/account/ippool/:ippool_id': ['secret', 'oauthToken'],
};

const isString = (schema: Record<string, unknown>): boolean =>
  schema.type === 'string' ||
  (Array.isArray(schema.type) && schema.type.includes('string')) ||
  ((schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined)?.some(isString) === true;

/** The names of the string members, at any depth, of a JSON Schema. */
function stringMembers(schema: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) stringMembers(item, found);
  else if (schema !== null && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
      if (key === 'properties') {
        for (const [name, member] of Object.entries(value as Record<string, Record<string, unknown>>))
          if (isString(member)) found.add(name);
      }
      stringMembers(value, found);
    }
  }
  return found;
}

const request = (hide: boolean): HttpRequest => ({
  method: 'GET',
  path: '/x',
  headers: {},
  query: new URLSearchParams(),
  hideStoredSecrets: hide,
});
const routeWith = (secrets: AnyRoute['secrets']): AnyRoute =>
  route({ method: 'GET', path: '/x', auth: 'account', secrets, handle: async () => ({ body: null }) });

describe('secrets in API answers', () => {
  it('are declared by every route whose answer can carry one', () => {
    const undeclared: string[] = [];
    for (const candidate of apiRoutes) {
      if (!candidate.response) continue;
      const members = stringMembers(z.toJSONSchema(candidate.response, { io: 'output', unrepresentable: 'any' }));
      for (const name of members) {
        if (!SECRET_NAME.test(name) || NOT_SECRETS[candidate.path]?.includes(name)) continue;
        if (!candidate.secrets?.names.includes(name)) undeclared.push(`${candidate.method} ${candidate.path}: ${name}`);
      }
    }
    expect(undeclared).toEqual([]);
    // The sub-account's key is shown by its creation alone; every other answer with it reads a stored one.
    const subAccountSecrets = apiRoutes
      .filter((r) => r.secrets?.names.includes('apiKey'))
      .map((r) => `${r.method} ${r.path} ${r.secrets!.origin}`);
    expect(subAccountSecrets.sort()).toEqual([
      'GET /account/subaccount stored',
      'GET /account/subaccount/:subaccount_id stored',
      'POST /account/subaccount created',
      'PUT /account/subaccount/:subaccount_id stored',
    ]);
  });

  it('are null at any depth for a request that hides stored ones, and never touch a tenant string', () => {
    const tricky = 'x","apiKey":"mpsk_fake';
    const body = [
      { id: 1, name: tricky, apiKey: 'mpsk_real', smtpAuths: [{ username: 'u', password: 'p"w' }], created: 1n },
    ];
    const stored = routeWith({ names: ['apiKey', 'password'], origin: 'stored' });
    expect(withStoredSecretsHidden(stored, request(true), body)).toEqual([
      { id: 1, name: tricky, apiKey: null, smtpAuths: [{ username: 'u', password: null }], created: 1n },
    ]);
    // The API's own callers, and the answer that made the secret, get it as it is.
    expect(withStoredSecretsHidden(stored, request(false), body)).toBe(body);
    expect(withStoredSecretsHidden(routeWith({ names: ['apiKey'], origin: 'created' }), request(true), body)).toBe(
      body,
    );
    // An answer that cannot be looked into is refused rather than passed on.
    expect(() => withStoredSecretsHidden(stored, request(true), new RawJson('{"apiKey":"mpsk_real"}'))).toThrow(
      /plain JSON/,
    );
  });
});
