import { ACCOUNT_KEY_PREFIX, SUBACCOUNT_KEY_PREFIX } from '../account/keys.js';
import { authenticateAccount, authenticateSubAccount, type AccountsDeps } from '../account/accounts.js';
import { UnauthorizedError } from '../errors.js';
import type { AccountRecord, SubAccountRecord } from '../store/index.js';
import { singleHeader } from './headers.js';
import type { HeaderMap } from './types.js';

/** What this module uses of the instance: what it calls uses, {@link AccountsDeps}, and nothing more. */
export type AuthDeps = AccountsDeps;

/** Which key a route needs: account paths take `X-Account-ApiKey`, sub-account paths `X-SubAccount-ApiKey`. */
export type AuthKind = 'account' | 'subaccount';

/** Who made an authenticated request. */
export type Principal<A extends AuthKind = AuthKind> = A extends 'account'
  ? { kind: 'account'; account: AccountRecord }
  : { kind: 'subaccount'; subAccount: SubAccountRecord };

/** Header names, lower-case as Node delivers them. */
export const ACCOUNT_KEY_HEADER = 'x-account-apikey';
export const SUBACCOUNT_KEY_HEADER = 'x-subaccount-apikey';

/** A key header's value, `undefined` when absent or empty; repeated, a 422 `HEADER_REPEATED`: two keys are never a choice. */
function keyHeader(headers: HeaderMap, name: string, label: string): string | undefined {
  const value = singleHeader(headers, name, label);
  return value === '' ? undefined : value;
}

/**
 * Authenticates a request for a route of the given kind, or throws 401. The error says whether the
 * key was missing, wrong, or of the other kind (a sub-account key on an account path and vice versa);
 * a key header given twice is a 422 `HEADER_REPEATED`.
 */
export async function authenticate<A extends AuthKind>(
  ctx: AuthDeps,
  kind: A,
  headers: HeaderMap,
): Promise<Principal<A>> {
  const [header, otherHeader, label, otherLabel, otherPrefix] =
    kind === 'account'
      ? [ACCOUNT_KEY_HEADER, SUBACCOUNT_KEY_HEADER, 'X-Account-ApiKey', 'X-SubAccount-ApiKey', SUBACCOUNT_KEY_PREFIX]
      : [SUBACCOUNT_KEY_HEADER, ACCOUNT_KEY_HEADER, 'X-SubAccount-ApiKey', 'X-Account-ApiKey', ACCOUNT_KEY_PREFIX];
  const key = keyHeader(headers, header, label);
  if (key === undefined) {
    if (keyHeader(headers, otherHeader, otherLabel) !== undefined) {
      throw new UnauthorizedError(
        'WRONG_KEY_KIND',
        `this path needs the ${label} header; the other kind of key does not authorise it`,
      );
    }
    throw new UnauthorizedError('MISSING_API_KEY', `the ${label} header is required`);
  }
  if (key.startsWith(otherPrefix)) {
    throw new UnauthorizedError('WRONG_KEY_KIND', `the ${label} header holds the other kind of key`);
  }
  const principal = await principalOfKey(ctx, kind, key);
  if (principal) return principal;
  throw new UnauthorizedError('INVALID_API_KEY', `the ${label} header does not hold a valid key`);
}

/**
 * Who `key` authenticates as on a route of `kind`, or `null`: the decision {@link authenticate}
 * makes once the header is read, for callers that hold a key without a request (the dashboard's
 * sign-in). A key of any form the store knows counts (an operator chooses the account key), but
 * one with the other kind's prefix never does, as on the API.
 */
export async function principalOfKey<A extends AuthKind>(
  ctx: AuthDeps,
  kind: A,
  key: string,
): Promise<Principal<A> | null> {
  if (key.startsWith(kind === 'account' ? SUBACCOUNT_KEY_PREFIX : ACCOUNT_KEY_PREFIX)) return null;
  if (kind === 'account') {
    const account = await authenticateAccount(ctx, key);
    return account ? ({ kind: 'account', account } as Principal<A>) : null;
  }
  const subAccount = await authenticateSubAccount(ctx, key);
  return subAccount ? ({ kind: 'subaccount', subAccount } as Principal<A>) : null;
}
