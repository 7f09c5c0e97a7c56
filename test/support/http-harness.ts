/**
 * A mailplane instance behind a real node:http server on 127.0.0.1 (the examples' mounting: the
 * `/api/v1` router, the `/t` link handler and the `/dashboard` through `toNodeHandler`), with a raw
 * HTTP client that sends exactly the bytes a test gives and bounds every request's time.
 */
import { createServer, maxHeaderSize, request as httpRequest, Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMailplane, silentLogger, type Mailplane, type MailplaneOptions, type MailplaneStore } from 'mailplane';
import { createDashboard } from 'mailplane/dashboard';
import { toNodeHandler } from '../../adapters/http/node/index.js';
import { TEST_DOMAINS, TEST_SECRET } from './api.js';
import { openTestStore, type StoreKind } from './databases.js';
import { startTestDnsServer, type TestDnsServer } from './dns-server.js';

/** Longest time one request may take before the harness calls it a hang. */
export const REQUEST_BOUND_MS = 5000;

/**
 * The one place where the options of the instances under attack are built. Whatever a hardening
 * change adds that would get in the way of a fuzzer or of the isolation battery is relaxed here, and
 * only here: the per-key API rate limits run on every request but are set too high to refuse one
 * (thousands of requests a minute with one key would otherwise mostly be answered 429).
 */
export function harnessOptions(store: MailplaneStore, dns: TestDnsServer): MailplaneOptions {
  return {
    store,
    secret: TEST_SECRET,
    logger: silentLogger,
    trackingBaseUrl: 'http://127.0.0.1:3000/t',
    // Domain verification asks the test zone, which knows none of the fuzzed names: quick NXDOMAIN.
    // No RDAP: tests do not reach the internet (where the lookup would wait out its 5 s timeout).
    dns: { servers: [{ host: dns.host, port: dns.port }], timeoutMs: 500, retries: 0, rdapBaseUrl: null },
    rateLimits: { requestsPerMinute: 100_000_000, recipientsPerMinute: 100_000_000 },
    // The receiving host, so the battery can enable receiving on a domain (docs/inbound.md).
    inbound: { hostname: 'mx.harness.test' },
    domains: TEST_DOMAINS,
  };
}

/** What one raw request carries. */
export interface RawRequest {
  method: string;
  /** The request target as written on the request line, e.g. `/api/v1/account/ip?limit=2`. */
  target: string;
  /** Header values; an array sends the header once per value. */
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

/** A response as received; `ms` is the time from sending to the end of the body. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  ms: number;
}

/** A running instance and its HTTP server. */
export interface HttpHarness {
  mailplane: Mailplane;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Sends one request; rejects when no complete answer came within {@link REQUEST_BOUND_MS}. */
  send(request: RawRequest): Promise<RawResponse>;
  close(): Promise<void>;
}

/** The size of a request's line and headers as written on the wire (close enough to compare with node's limit). */
function headBytes(request: RawRequest): number {
  let size = Buffer.byteLength(`${request.method} ${request.target} HTTP/1.1\r\n`);
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    for (const one of Array.isArray(value) ? value : [value]) size += Buffer.byteLength(`${name}: ${one}\r\n`);
  }
  return size;
}

/** Starts a test DNS server, a fresh database of `kind`, mailplane, and the HTTP server in front. */
export async function startHttpHarness(kind: StoreKind): Promise<HttpHarness> {
  const dns = await startTestDnsServer();
  const { store, close: closeStore } = await openTestStore(kind);
  const mailplane = createMailplane(harnessOptions(store, dns));
  const api = toNodeHandler(mailplane.handle, { prefix: '/api/v1' });
  const links = toNodeHandler(mailplane.handleLinks, { prefix: '/t' });
  const dashboard = toNodeHandler(createDashboard(mailplane), { prefix: '/dashboard' });
  const handlerOf = (url = '') => (url.startsWith('/t/') ? links : url.startsWith('/dashboard') ? dashboard : api);
  const server: Server = createServer((req, res) => handlerOf(req.url)(req, res));
  // No idle timeout on the server's side of a kept-alive connection (close() ends them all): with
  // node's 5 s, a test process paused for longer between two requests (building a large body, on a
  // loaded machine) risks the known keep-alive race, the server closing a connection just as the
  // agent reuses it, which the client sees as a reset.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });

  const send = (request: RawRequest): Promise<RawResponse> =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      // A head over node's limit is answered 431 before any body is read, and node then closes the
      // connection: a body still being written meets a reset instead of the answer (Node 24 closes
      // sooner than Node 20). Such a request goes without its body, which node would never read.
      const body = headBytes(request) > maxHeaderSize ? '' : (request.body ?? '');
      const headers: Record<string, string | string[] | number> = { ...request.headers };
      if (body.length > 0 || request.method !== 'GET') headers['content-length'] = Buffer.byteLength(body);
      const req = httpRequest(
        { host: '127.0.0.1', port, method: request.method, path: request.target, headers, agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            clearTimeout(timer);
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(chunks).toString('utf8'),
              ms: performance.now() - started,
            });
          });
          res.on('error', reject);
        },
      );
      const timer = setTimeout(() => {
        req.destroy(
          new Error(`no answer within ${REQUEST_BOUND_MS} ms: ${request.method} ${request.target.slice(0, 200)}`),
        );
      }, REQUEST_BOUND_MS);
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      req.end(body);
    });

  return {
    mailplane,
    origin: `http://127.0.0.1:${port}`,
    send,
    close: async () => {
      agent.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await mailplane.close().catch(() => {});
      await closeStore();
      await dns.close();
    },
  };
}
