/** Shared assertions for the bad-input battery every endpoint is put through. */
import { expect } from 'vitest';
import type { CallOptions, TestApi } from './api.js';

/** Asserts `status` and that the body is a JSON error with a stable UPPER_SNAKE code and a message. */
export function expectError(
  result: { status: number; body: { code?: unknown; message?: unknown } },
  status: number,
  code?: string,
): void {
  expect(result.status, JSON.stringify(result.body)).toBe(status);
  expect(result.body.code).toMatch(/^[A-Z][A-Z0-9_]+$/);
  expect(typeof result.body.message).toBe('string');
  if (code !== undefined) expect(result.body.code).toBe(code);
}

/**
 * The authentication battery: no key, a wrong key, and the other kind of key all get 401 and
 * change nothing. `goodKey` is the kind the path needs; `otherKey` a valid key of the other kind.
 */
export async function expectAuthBattery(
  api: TestApi,
  method: string,
  path: string,
  kind: 'account' | 'sub',
  otherKey: string,
  options: CallOptions = {},
): Promise<void> {
  const other = kind === 'account' ? { sub: otherKey } : { account: otherKey };
  const wrong = kind === 'account' ? { account: 'mpak_not-a-real-key' } : { sub: 'mpsk_not-a-real-key' };
  const misplaced = kind === 'account' ? { account: otherKey } : { sub: otherKey };
  expectError(await api.call(method, path, { ...options }), 401, 'MISSING_API_KEY');
  expectError(await api.call(method, path, { ...options, ...wrong }), 401, 'INVALID_API_KEY');
  expectError(await api.call(method, path, { ...options, ...other }), 401, 'WRONG_KEY_KIND');
  expectError(await api.call(method, path, { ...options, ...misplaced }), 401, 'WRONG_KEY_KIND');
}
