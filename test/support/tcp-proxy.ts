/**
 * A TCP forwarder on loopback: a real network path to a real server (PostgreSQL) that a test can
 * cut, leaving a closed port where the database was, as when a database host goes away.
 */
import { connect, createServer, type Socket } from 'node:net';

/** A running forwarder. */
export interface TcpProxy {
  /** The loopback port it listens on. */
  port: number;
  /** Drops every forwarded connection and stops listening: the port is closed from then on. */
  cut(): Promise<void>;
}

/** Forwards connections on a free loopback port to `host:port`. */
export async function startTcpProxy(port: number, host = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    const upstream = connect({ port, host });
    track(client);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    port: address.port,
    cut: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/** A loopback port on which nothing listens (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
