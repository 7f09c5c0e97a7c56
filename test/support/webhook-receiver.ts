/**
 * A real HTTP server on loopback that receives webhook deliveries and answers as a test tells it;
 * and a TCP server that accepts connections and never says a word.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';

/** One request as received: headers and the exact body. */
export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the JSON shape
  json: any;
}

/**
 * How the receiver answers the next request: a status code, `'stall'` (never answers), or `'drip'`
 * (200 and its headers at once, then a body of an hour's length, one byte a second).
 */
export type ReceiverAnswer = number | 'stall' | 'drip';

/** A running receiver. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hook` */
  url: string;
  port: number;
  received: ReceivedDelivery[];
  /** Answers to give, in order; once used up, `then` (default 200). */
  answer(...answers: ReceiverAnswer[]): void;
  /** The answer once those given to {@link WebhookReceiver.answer} are used up. */
  always(then: ReceiverAnswer): void;
  /** Connections accepted so far, and those still open. */
  connections(): { accepted: number; open: number };
  /** Destroys every open connection (a stalled request fails at the sender); keeps listening. */
  dropConnections(): void;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 and an ephemeral port. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  let answers: ReceiverAnswer[] = [];
  let then: ReceiverAnswer = 200;
  const open = new Set<Socket>();
  let accepted = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        // kept as text; the test asserts on it
      }
      received.push({ headers: req.headers, body, json });
      const answer = answers.shift() ?? then;
      if (answer === 'stall') return;
      if (answer === 'drip') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 3600 }).flushHeaders();
        const drip = setInterval(() => res.write('.'), 1000);
        res.once('close', () => clearInterval(drip));
        return;
      }
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'try later');
    });
  });
  server.on('connection', (socket: Socket) => {
    accepted++;
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    answer: (...next) => {
      answers = next;
    },
    always: (answer) => {
      then = answer;
    },
    connections: () => ({ accepted, open: open.size }),
    dropConnections: () => {
      for (const socket of open) socket.destroy();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A TCP server on loopback that accepts connections and never sends a byte (nor a TLS handshake). */
export interface SilentServer {
  port: number;
  /** Connections accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

/** Starts a {@link SilentServer} on 127.0.0.1 and an ephemeral port. */
export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createTcpServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    accepted: () => accepted,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
