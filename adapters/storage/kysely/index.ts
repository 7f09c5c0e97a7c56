/**
 * `mailplane/storage/kysely`: the SQL storage adapter. SQLite (better-sqlite3) is the embedded
 * default; PostgreSQL (pg) serves several mailplane processes sharing one database.
 *
 * @packageDocumentation
 */
export { openKyselyStore, migrateToLatest, parseDatabaseUrl, type OpenKyselyStoreOptions } from './connect.js';
export { kyselyStore, type KyselyStoreOptions } from './store.js';
export { mailplaneMigrations } from './migrations/index.js';
export { ensurePrivateDirectory, ensurePrivateFile, PRIVATE_DIRECTORY_MODE, PRIVATE_FILE_MODE } from './private-files.js';
export type { DialectName } from './dialect.js';
export type { Database } from './schema.js';
