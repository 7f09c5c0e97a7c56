import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import type { Logger } from '../../../src/logging/logger.js';

/** Directories mailplane keeps data in: the owner only (`rwx------`). */
export const PRIVATE_DIRECTORY_MODE = 0o700;
/** Files holding data or secrets: the owner only (`rw-------`). */
export const PRIVATE_FILE_MODE = 0o600;

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

/**
 * Makes `directory` exist, readable by its owner only. Directories created here (and missing
 * parents) get mode 0700 set explicitly, so the process umask cannot widen them. One that already
 * existed is not mailplane's to change: if others can read or enter it, a warning says so.
 *
 * @example
 * ensurePrivateDirectory('./data', consoleLogger);
 */
export function ensurePrivateDirectory(directory: string, logger: Pick<Logger, 'warn'>): void {
  const target = resolve(directory);
  const first = mkdirSync(target, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  if (first !== undefined) {
    // every directory from the first one created down to the target is mailplane's
    const created = [first, ...relative(first, target).split(sep).filter(Boolean)];
    let path = '';
    for (const part of created) {
      path = path === '' ? part : resolve(path, part);
      chmodSync(path, PRIVATE_DIRECTORY_MODE);
    }
    return;
  }
  const mode = statSync(target).mode;
  if ((mode & 0o077) !== 0) {
    logger.warn('data directory readable by other users', {
      directory: target,
      mode: octal(mode),
      advice: `mailplane did not create it, so it leaves it as it is: run chmod 700 ${target}`,
    });
  }
}

/**
 * Makes `file` readable and writable by its owner only: created empty with mode 0600 when missing
 * (before anything writes to it), tightened to 0600 when it exists (it is mailplane's own file: the
 * database, its WAL and shared memory, the generated secret). A file this process may not chmod
 * (another owner) is left alone with a warning.
 */
export function ensurePrivateFile(file: string, logger: Pick<Logger, 'warn'>, create = true): void {
  try {
    if (create) closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
    if ((statSync(file).mode & 0o777) !== PRIVATE_FILE_MODE) chmodSync(file, PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !create) return;
    logger.warn('could not make a data file private', {
      file,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/** The files SQLite keeps next to the database in WAL mode (and in rollback-journal mode). */
const SQLITE_SIDECARS = ['-wal', '-shm', '-journal'];

/**
 * Prepares an SQLite database path before the driver opens it: the directory private (0700 when
 * created here), the database file created 0600. SQLite gives the WAL and shared-memory files the
 * database file's mode; {@link tightenSqliteSidecars} makes sure of it once they exist.
 */
export function prepareSqliteFile(target: string, logger: Pick<Logger, 'warn'>): void {
  ensurePrivateDirectory(dirname(target), logger);
  ensurePrivateFile(target, logger);
  tightenSqliteSidecars(target, logger);
}

/** Sets 0600 on the database's `-wal`, `-shm` and `-journal` files that exist. */
export function tightenSqliteSidecars(target: string, logger: Pick<Logger, 'warn'>): void {
  for (const suffix of SQLITE_SIDECARS) ensurePrivateFile(`${target}${suffix}`, logger, false);
}
