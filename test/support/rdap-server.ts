/**
 * A small RDAP server for tests: real HTTP on 127.0.0.1, an ephemeral port, answering
 * `GET /domain/<name>` from a table the test fills, with switches for the failures an RDAP
 * client must survive (unknown domain, garbage, an answer that never comes, a huge body).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the server answers for one domain. */
export type RdapAnswer =
  /** A registration date, answered after `afterMs` (default at once). */
  | { registered: string; afterMs?: number }
  | { status: number; body: string }
  | 'garbage'
  /** Sends headers, then never finishes the body. */
  | 'hang'
  /** A valid start of JSON followed by megabytes of padding. */
  | 'huge';

/** The running server and its controls. */
export interface TestRdapServer {
  /** The base URL to configure (`http://127.0.0.1:<port>`). */
  readonly baseUrl: string;
  /** Paths requested, oldest first. */
  readonly requests: string[];
  /** Sets the answer for `domain`; domains without one get a 404 RDAP error object. */
  answer(domain: string, answer: RdapAnswer): void;
  close(): Promise<void>;
}

/** A registry-style RDAP domain object with a registration event. */
export function rdapDomainObject(name: string, registered: string): object {
  return {
    objectClassName: 'domain',
    ldhName: name.toUpperCase(),
    rdapConformance: ['rdap_level_0'],
    events: [
      { eventAction: 'last changed', eventDate: '2024-01-02T03:04:05Z' },
      { eventAction: 'registration', eventDate: registered },
      { eventAction: 'expiration', eventDate: '2030-08-13T04:00:00Z' },
    ],
  };
}

/** Starts the server. */
export async function startTestRdapServer(): Promise<TestRdapServer> {
  const answers = new Map<string, RdapAnswer>();
  const requests: string[] = [];
  const hanging = new Set<ServerResponse>();
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/rdap+json' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const match = /^\/domain\/([^/?]+)$/.exec(req.url ?? '');
    const name = match ? decodeURIComponent(match[1]!).toLowerCase() : '';
    const answer = answers.get(name);
    if (!answer) return json(res, 404, { errorCode: 404, title: 'Not Found' });
    if (answer === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/rdap+json' });
      return res.end('<html>this is not json');
    }
    if (answer === 'hang') {
      res.writeHead(200, { 'content-type': 'application/rdap+json' });
      res.write('{"events": [');
      hanging.add(res);
      return;
    }
    if (answer === 'huge') {
      res.writeHead(200, { 'content-type': 'application/rdap+json' });
      res.write('{"padding": "');
      res.write('x'.repeat(4 * 1024 * 1024));
      return res.end('", "events": []}');
    }
    if ('registered' in answer) {
      const send = () => json(res, 200, rdapDomainObject(name, answer.registered));
      if (answer.afterMs === undefined) return send();
      const timer = setTimeout(send, answer.afterMs);
      res.once('close', () => clearTimeout(timer));
      return;
    }
    res.writeHead(answer.status, { 'content-type': 'application/rdap+json' });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    answer: (domain, answer) => void answers.set(domain.toLowerCase(), answer),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
