/** A real HTTP server on loopback that receives webhook deliveries and answers as a test tells it. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as received: headers and the exact body. */
export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the JSON shape
  json: any;
}

/** How the receiver answers the next request: a status code, or `'stall'` (never answers). */
export type ReceiverAnswer = number | 'stall';

/** A running receiver. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hook` */
  url: string;
  port: number;
  received: ReceivedDelivery[];
  /** Answers to give, in order; once used up, 200. */
  answer(...answers: ReceiverAnswer[]): void;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 and an ephemeral port. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  let answers: ReceiverAnswer[] = [];
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
      const answer = answers.shift() ?? 200;
      if (answer === 'stall') return;
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'try later');
    });
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
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
