/**
 * Which driver faults mean "the database cannot serve or cannot write now" (503 with Retry-After,
 * SMTP 451) rather than a storage failure (500): the codes PostgreSQL and SQLite give for a full
 * disk, a read-only database, a failing disk, too many connections and a restart. The integration
 * test storage-unwritable.test.ts makes the ones a test can make for real (read-only, full SQLite).
 */
import { describe, expect, it } from 'vitest';
import { isUnavailableFault, storageFault, StorageError, UnavailableError } from 'mailplane';

/** A driver error as pg and better-sqlite3 throw it: a message and a `code`. */
const driverError = (code: string, message = 'driver says no') => Object.assign(new Error(message), { code });

describe('isUnavailableFault', () => {
  it('takes PostgreSQL disk full, out of resources, read-only, I/O errors and shutdowns as unavailable', () => {
    for (const code of [
      '53000',
      '53100',
      '53200',
      '53300',
      '25006',
      '58030',
      '57P01',
      '57P02',
      '57P03',
      '57P05',
      '08006',
    ]) {
      expect(isUnavailableFault(driverError(code)), code).toBe(true);
    }
  });

  it('keeps PostgreSQL errors retrying cannot fix as storage errors', () => {
    for (const code of ['53400', '23505', '42P01', '22P02', '57P04'])
      expect(isUnavailableFault(driverError(code)), code).toBe(false);
  });

  it('takes SQLite full, read-only, I/O, busy and cannot-open results, extended codes included, as unavailable', () => {
    for (const code of [
      'SQLITE_FULL',
      'SQLITE_READONLY',
      'SQLITE_READONLY_DBMOVED',
      'SQLITE_IOERR',
      'SQLITE_IOERR_WRITE',
      'SQLITE_IOERR_FSYNC',
      'SQLITE_BUSY',
      'SQLITE_BUSY_SNAPSHOT',
      'SQLITE_CANTOPEN',
    ]) {
      expect(isUnavailableFault(driverError(code)), code).toBe(true);
    }
  });

  it('keeps SQLite errors of a broken schema or file as storage errors', () => {
    for (const code of [
      'SQLITE_ERROR',
      'SQLITE_CORRUPT',
      'SQLITE_NOTADB',
      'SQLITE_CONSTRAINT_UNIQUE',
      'SQLITE_FULLNESS',
    ]) {
      expect(isUnavailableFault(driverError(code)), code).toBe(false);
    }
  });

  it('is what storageFault turns into UnavailableError', () => {
    expect(
      storageFault(driverError('53100', 'could not extend file: No space left on device'), 'messages.insertAccepted'),
    ).toBeInstanceOf(UnavailableError);
    expect(storageFault(driverError('SQLITE_CORRUPT'), 'accounts.get')).toBeInstanceOf(StorageError);
  });
});
