/**
 * How an error is told to the log, the same way by every part that logs one (the router, the
 * bridges, the dashboard, the background jobs).
 */

/**
 * One line for the log: the error's name, its code when it has one (node's `ERR_INVALID_CHAR`, a
 * driver's `SQLITE_BUSY`, mailplane's `STORAGE_ERROR`) and its message, then the same of its cause
 * (the driver's error behind a `StorageError`). Never the request's data.
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const line = `${error.name}${typeof code === 'string' ? ` [${code}]` : ''}: ${error.message}`;
  return error.cause === undefined || error.cause === error ? line : `${line} (cause: ${describeError(error.cause)})`;
}
