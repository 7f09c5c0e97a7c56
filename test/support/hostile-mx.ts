/**
 * Mail servers that behave as hostile or broken receivers on the internet do, for the delivery
 * hardening tests and the hostile-receivers benchmark: a real TCP server on a loopback address
 * (127.0.0.2 and up share the sink's port, as the MX transport connects to one port), speaking just
 * enough SMTP to hold a client where it wants it.
 *
 * - `drip`: greets `220`, then answers EHLO with `250-` and one byte every `dripMs`, never ending;
 * - `tarpit`: accepts the connection and never says a word;
 * - `endless`: greets with `220-` lines of 1,000 bytes, as fast as the client reads, never ending;
 * - `banner`: greets with one 1 MB line;
 * - `refuse421`: greets `421 4.7.0 Try again later, closing connection.` (Gmail's words) and closes.
 */
import { createServer, type Server, type Socket } from 'node:net';

/** How a {@link HostileMx} treats each connection. */
export type HostileBehaviour = 'drip' | 'tarpit' | 'endless' | 'banner' | 'refuse421';

/** A running hostile server and what it saw. */
export interface HostileMx {
  readonly host: string;
  readonly port: number;
  /** Connections accepted in all. */
  readonly accepted: number;
  /** Connections open now. */
  readonly open: number;
  /** The most connections open at once. */
  readonly maxOpen: number;
  /** Bytes written to clients, in all. */
  readonly bytesSent: number;
  close(): Promise<void>;
}

/** One line of the endless greeting: 1,000 bytes with its CRLF. */
const ENDLESS_LINE = Buffer.from(`220-${'x'.repeat(994)}\r\n`);

/** Starts a server with `behaviour` on `host:port` (a loopback address; port 0 picks one). */
export async function startHostileMx(
  behaviour: HostileBehaviour,
  host: string,
  port = 0,
  { dripMs = 2_000 } = {},
): Promise<HostileMx> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const stats = { accepted: 0, maxOpen: 0, bytesSent: 0 };
  const write = (socket: Socket, bytes: Buffer | string) => {
    if (socket.destroyed) return false;
    stats.bytesSent += Buffer.byteLength(bytes);
    return socket.write(bytes);
  };

  const speak: Record<HostileBehaviour, (socket: Socket) => void> = {
    tarpit: () => undefined,
    refuse421: (socket) => {
      write(socket, '421 4.7.0 Try again later, closing connection.\r\n');
      socket.end();
    },
    banner: (socket) => {
      write(socket, `220 ${'b'.repeat(1_000_000)}\r\n`);
    },
    endless: (socket) => {
      // As fast as the client reads: back-pressure paces it, so a client that stops reading stops it.
      const pump = () => {
        while (write(socket, ENDLESS_LINE));
      };
      socket.on('drain', pump);
      pump();
    },
    drip: (socket) => {
      write(socket, '220 drip.test ESMTP\r\n');
      socket.once('data', () => {
        const bytes = Buffer.from('250-drip.test says hello, slowly\r\n');
        let next = 0;
        const timer = setInterval(() => {
          write(socket, bytes.subarray(next % bytes.length, (next % bytes.length) + 1));
          next += 1;
        }, dripMs);
        timers.add(timer);
        socket.once('close', () => {
          clearInterval(timer);
          timers.delete(timer);
        });
      });
    },
  };

  const server: Server = createServer((socket) => {
    stats.accepted += 1;
    sockets.add(socket);
    stats.maxOpen = Math.max(stats.maxOpen, sockets.size);
    socket.on('error', () => undefined);
    socket.once('close', () => sockets.delete(socket));
    speak[behaviour](socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('hostile MX: no address');
  return {
    host,
    port: address.port,
    get accepted() {
      return stats.accepted;
    },
    get open() {
      return sockets.size;
    },
    get maxOpen() {
      return stats.maxOpen;
    },
    get bytesSent() {
      return stats.bytesSent;
    },
    async close() {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
