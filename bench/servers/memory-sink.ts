/**
 * The SMTP sink of the memory benchmark (bench/memory.ts), in its own process: it accepts every
 * message on 127.0.0.1, counts it and discards it. Nothing received is kept, so the sink's own
 * memory stays flat however many messages arrive, and it cannot slow the drain down by growing.
 *
 * It prints `listening on http://127.0.0.1:<port>` for a small HTTP endpoint answering
 * `{"smtpPort":…,"count":…,"bytes":…,"arrivals":{…}}`: the parent polls it instead of parsing a log
 * that would grow for the whole run. With `SINK_TIMED_PREFIX` set, `arrivals` maps each recipient
 * starting with it to the epoch milliseconds its message arrived (bench/fair-queues.ts times one
 * tenant's messages among another's): the sink's own clock, so the parent's busy event loop does
 * not add to the figure.
 */
import http from 'node:http';
import { SMTPServer } from 'smtp-server';

let count = 0;
let bytes = 0;
const timedPrefix = process.env.SINK_TIMED_PREFIX;
const arrivals: Record<string, number> = {};

const smtp = new SMTPServer({
  authOptional: true,
  // Plain text: a loopback sink measures mailplane, not TLS handshakes.
  hideSTARTTLS: true,
  disabledCommands: ['AUTH'],
  logger: false,
  // smtp-server resolves each client's address before its greeting (up to 1.5 s here, with no
  // DNS server): a sink that measures delivery greets at once.
  disableReverseLookup: true,
  size: 50 * 1024 * 1024,
  // One connection carries many messages (mailplane pools connections): no per-connection cap.
  maxClients: 1000,
  onData(stream, session, callback) {
    stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
    stream.on('end', () => {
      count += 1;
      if (timedPrefix)
        for (const { address } of session.envelope.rcptTo)
          if (address.startsWith(timedPrefix)) arrivals[address] ??= Date.now();
      callback();
    });
  },
});

const control = http.createServer((_req, res) => {
  const address = smtp.server.address();
  const smtpPort = typeof address === 'object' && address ? address.port : 0;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ smtpPort, count, bytes, arrivals }));
});

smtp.listen(0, '127.0.0.1', () => {
  control.listen(0, '127.0.0.1', () => {
    const address = control.address();
    console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
  });
});

process.once('SIGTERM', () => {
  control.close();
  smtp.close(() => process.exit(0));
});
