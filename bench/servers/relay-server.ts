/**
 * The relay benchmark's servers, one per process: `BENCH_RELAY_MODE=bare` is a bare smtp-server that
 * takes any login and discards what it reads (the baseline); `mailplane` is mailplane's relay on
 * SQLite with a sub-account and a verified domain, workers off (ingest only: accepted and
 * committed, not delivered). Prints `listening on http://127.0.0.1:<port>` and, for mailplane,
 * `credentials <user> <password>`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { openKyselyStore } from '../../adapters/storage/kysely/index.js';
import { silentLogger } from '../../src/logging/logger.js';
import { createMailplane } from '../../src/mailplane.js';
import { createSmtpRelay } from '../../src/smtp/relay.js';
import { benchSender } from '../lib/sender.js';

const announce = (port: number) => console.log(`listening on http://127.0.0.1:${port}`);

if (process.env.BENCH_RELAY_MODE === 'bare') {
  const server = new SMTPServer({
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
    hideSTARTTLS: true,
    disableReverseLookup: true,
    logger: false,
    size: 25 * 1024 * 1024,
    onAuth: (_auth, _session, callback) => callback(null, { user: 'any' }),
    onData(stream, _session, callback) {
      stream.on('end', () => callback());
      stream.resume();
    },
  });
  server.listen(0, '127.0.0.1', () => announce((server.server.address() as { port: number }).port));
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
} else {
  const dir = mkdtempSync(join(tmpdir(), 'mailplane-bench-relay-'));
  const store = await openKyselyStore({ url: `sqlite:${join(dir, 'mailplane.db')}` });
  const mailplane = createMailplane({
    store,
    secret: 'bench-secret-bench-secret-bench-secret-0123',
    logger: silentLogger,
  });
  const { smtp } = await benchSender(mailplane);
  const relay = createSmtpRelay(mailplane, { allowInsecureAuth: true });
  const { port } = await relay.listen(0, '127.0.0.1');
  console.log(`credentials ${smtp.user} ${smtp.pass}`);
  announce(port);
  process.once('SIGTERM', () => {
    void relay
      .close()
      .then(() => mailplane.close())
      .then(() => process.exit(0));
  });
}
