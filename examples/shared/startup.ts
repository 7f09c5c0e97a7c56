/**
 * The example servers' start-up steps that can fail on a misconfigured machine (a bad variable, a
 * port in use, a database that cannot be reached, a wrong secret), and the lines they print
 * before exiting non-zero, instead of a stack trace or a server that claims
 * to listen when it does not.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger, MailplaneStore } from 'mailplane';
import { ConfigurationError, describeProblem } from './config-schema.js';
import { openKyselyStore } from 'mailplane/storage/kysely';

/** Node's words for the socket errors an operator can fix, keyed by errno code. */
const SOCKET_HINTS: Record<string, string> = {
  EADDRINUSE: 'the port is already in use (set PORT to a free one, or stop the other server)',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'the address is not one of this machine (check HOST)',
};

/** The readable words of one error: its message, else its code (an AggregateError may have neither). */
function wordsOf(error: unknown): string {
  if (error instanceof AggregateError && error.message === '')
    return error.errors.map(wordsOf).filter(Boolean).join('; ');
  if (error instanceof Error) return error.message || String((error as { code?: unknown }).code ?? error.name);
  return String(error);
}

/**
 * An error's message and those of its causes (the driver's "connect ECONNREFUSED 127.0.0.1:5432"
 * under the store's "cannot be reached"), on one line without repeats.
 */
export function failureWords(error: unknown): string {
  const parts: string[] = [];
  let link: unknown = error;
  for (let depth = 0; link !== undefined && link !== null && depth < 5; depth++) {
    const words = wordsOf(link);
    if (words !== '' && !parts.some((part) => part.includes(words))) parts.push(words);
    link = link instanceof Error ? link.cause : undefined;
  }
  return parts.join(': ').replace(/\s*\n\s*/g, ' ');
}

/** The one line printed when start-up fails: {@link failureWords} after `mailplane: cannot start: `. */
export function startupFailureLine(error: unknown): string {
  return `mailplane: cannot start: ${failureWords(error)}`;
}

/**
 * The lines printed when start-up fails: one per bad variable for a {@link ConfigurationError}
 * (every one at once, so a second start does not reveal the next), else {@link startupFailureLine}.
 */
export function startupFailureLines(error: unknown): string[] {
  if (error instanceof ConfigurationError)
    return error.problems.map((problem) => `mailplane: cannot start: ${describeProblem(problem)}`);
  return [startupFailureLine(error)];
}

/** Prints {@link startupFailureLines} on stderr and exits with status 1. */
export function exitOnStartupFailure(error: unknown): never {
  process.stderr.write(
    startupFailureLines(error)
      .map((line) => `${line}\n`)
      .join(''),
  );
  process.exit(1);
}

/** Where the data files' warnings go (a directory others can read, a file that cannot be made private). */
export type FileWarnings = Pick<Logger, 'warn'>;

/**
 * `logger`, writing each distinct warning once: the store checks the SQLite file's directory and
 * the secret checks the data directory, by default the same one.
 */
export function warnOnce(logger: FileWarnings): FileWarnings {
  const written = new Set<string>();
  return {
    warn: (message, fields) => {
      const key = JSON.stringify([message, fields]);
      if (written.has(key)) return;
      written.add(key);
      logger.warn(message, fields);
    },
  };
}

/** An HTTP server bound to its port before the application it serves exists. */
export interface BoundHttpServer {
  server: Server;
  /**
   * `http://<address>:<port>` of the socket actually bound: the port the system chose for `PORT=0`,
   * an IPv6 address in brackets, and loopback for a wildcard host (`0.0.0.0`, `::`), which is no
   * address a client can use.
   */
  localUrl: string;
  /** Hands every request from now on to `listener`; until then each is answered `503 STARTING`. */
  serve(listener: RequestListener): void;
}

/** The answer to a request that arrives after the port is bound but before the application is ready. */
const answerStarting: RequestListener = (_request, response) => {
  response.writeHead(503, {
    'content-type': 'application/json; charset=utf-8',
    'retry-after': '1',
    'cache-control': 'no-store',
  });
  response.end(JSON.stringify({ code: 'STARTING', message: 'the server is starting; try again in a moment' }));
};

/** The URL a client on this machine reaches `address` at. */
export function localUrlOf(address: AddressInfo): string {
  const host = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

/**
 * Binds an HTTP server to the configured host and port and resolves once it listens; rejects with
 * a plain explanation when it cannot. The port is bound first, before the store is opened, so the
 * URLs the instance writes into mail (links, `List-Unsubscribe`) can name the port actually bound
 * (`PORT=0`), not the configured 0. The listener is created here, not by Express or Koa: Express 5
 * hands a listen error to its callback and Koa's `listen` emits it, hiding it or crashing with a trace.
 */
export function bindHttp(config: { host: string; port: number }): Promise<BoundHttpServer> {
  let listener = answerStarting;
  const server = createServer((request, response) => listener(request, response));
  return new Promise((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException) => {
      const hint = (error.code && SOCKET_HINTS[error.code]) ?? error.message;
      reject(new Error(`cannot listen on ${config.host}:${config.port}: ${hint}`, { cause: error }));
    };
    server.once('error', fail);
    server.listen(config.port, config.host, () => {
      server.off('error', fail);
      resolve({
        server,
        localUrl: localUrlOf(server.address() as AddressInfo),
        serve: (application) => {
          listener = application;
        },
      });
    });
  });
}

/**
 * Opens the store of `MAILPLANE_DATABASE_URL`; a URL that cannot be used or a database that cannot
 * be reached is reported under the variable's name (never with the URL, which may hold a password).
 */
export async function openExampleStore(url: string, warnings: FileWarnings): Promise<MailplaneStore> {
  try {
    return await openKyselyStore({ url, logger: warnings });
  } catch (error) {
    throw new Error('MAILPLANE_DATABASE_URL', { cause: error });
  }
}
