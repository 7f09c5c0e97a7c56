/**
 * Configuration and start-up shared by the example servers: reads the environment, opens the
 * store, makes sure the account exists, and prints a generated account key once.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMailplane, type Mailplane } from 'mailplane';
import { openKyselyStore } from 'mailplane/storage/kysely';

/** The example servers' configuration, from the environment (see the README's table). */
export interface ExampleConfig {
  port: number;
  host: string;
  databaseUrl: string;
  dataDir: string;
  accountApiKey?: string;
  secret?: string;
}

/** Reads {@link ExampleConfig} from `process.env`. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): ExampleConfig {
  return {
    port: Number(env.PORT ?? 3000),
    host: env.HOST ?? '127.0.0.1',
    databaseUrl: env.MAILPLANE_DATABASE_URL ?? 'sqlite:./data/mailplane.db',
    dataDir: env.MAILPLANE_DATA_DIR ?? './data',
    accountApiKey: env.MAILPLANE_ACCOUNT_API_KEY || undefined,
    secret: env.MAILPLANE_SECRET || undefined,
  };
}

/** The instance secret: from the environment, else generated once and kept in `<dataDir>/secret`. */
function loadOrCreateSecret(config: ExampleConfig): string {
  if (config.secret) return config.secret;
  const file = join(config.dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(config.dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** Opens storage, creates the mailplane instance and its account; prints a generated key once. */
export async function startMailplane(config: ExampleConfig): Promise<Mailplane> {
  const store = await openKyselyStore({ url: config.databaseUrl });
  const mailplane = createMailplane({ store, secret: loadOrCreateSecret(config) });
  const { generatedApiKey } = await mailplane.ensureAccount({ apiKey: config.accountApiKey });
  if (generatedApiKey) {
    // Printed once, on the start that created the account; only its hash and ciphertext are stored.
    console.log(`mailplane: account API key (shown once, keep it): ${generatedApiKey}`);
  }
  return mailplane;
}

/** Closes the server and mailplane on SIGINT/SIGTERM. */
export function closeOnSignals(close: () => Promise<void>): void {
  const stop = () => {
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
