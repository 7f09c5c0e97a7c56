/**
 * The example servers' start-up steps that can fail on a misconfigured machine (a port in use, a
 * database that cannot be reached, an unreadable certificate, a wrong or short secret), and the
 * one line they print before exiting non-zero, instead of a stack trace or a server that claims
 * to listen when it does not.
 */
import { readFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { MailplaneStore } from 'mailplane';
import { openKyselyStore } from 'mailplane/storage/kysely';

/** Node's words for the socket errors an operator can fix, keyed by errno code. */
const SOCKET_HINTS: Record<string, string> = {
  EADDRINUSE: 'the port is already in use (set PORT to a free one, or stop the other server)',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'the address is not one of this machine (check HOST)',
};

/** The readable words of one error: its message, else its code (an AggregateError may have neither). */
function wordsOf(error: unknown): string {
  if (error instanceof AggregateError && error.message === '') return error.errors.map(wordsOf).filter(Boolean).join('; ');
  if (error instanceof Error) return error.message || String((error as { code?: unknown }).code ?? error.name);
  return String(error);
}

/**
 * The one line printed when start-up fails: the error's message and those of its causes (the
 * driver's "connect ECONNREFUSED 127.0.0.1:5432" under the store's "cannot be reached"), without
 * repeats or line breaks.
 */
export function startupFailureLine(error: unknown): string {
  const parts: string[] = [];
  let link: unknown = error;
  for (let depth = 0; link !== undefined && link !== null && depth < 5; depth++) {
    const words = wordsOf(link);
    if (words !== '' && !parts.some((part) => part.includes(words))) parts.push(words);
    link = link instanceof Error ? link.cause : undefined;
  }
  return `mailplane: cannot start: ${parts.join(': ')}`.replace(/\s*\n\s*/g, ' ');
}

/** Prints {@link startupFailureLine} on stderr and exits with status 1. */
export function exitOnStartupFailure(error: unknown): never {
  process.stderr.write(`${startupFailureLine(error)}\n`);
  process.exit(1);
}

/**
 * Starts an HTTP server for `listener` on the configured host and port and resolves once it
 * listens; rejects with a plain explanation when it cannot (Express 5 hands a listen error to its
 * callback, Koa's `listen` emits it: both would otherwise hide it or crash with a trace).
 */
export function listenHttp(listener: RequestListener, config: { host: string; port: number }): Promise<Server> {
  const server = createServer(listener);
  return new Promise((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException) => {
      const hint = (error.code && SOCKET_HINTS[error.code]) ?? error.message;
      reject(new Error(`cannot listen on ${config.host}:${config.port}: ${hint}`, { cause: error }));
    };
    server.once('error', fail);
    server.listen(config.port, config.host, () => {
      server.off('error', fail);
      resolve(server);
    });
  });
}

/** The port a listening server got (the configured one, or the one the system chose for 0). */
export function boundPort(server: Server, fallback: number): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : fallback;
}

/** Reads the PEM file named by the environment variable `name`, or says which file it could not read and why. */
export function readPemFile(path: string, name: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as NodeJS.ErrnoException).code === 'EACCES' ? 'permission denied' : wordsOf(error);
    throw new Error(`${name}: cannot read ${path} (${reason})`, { cause: error });
  }
}

/**
 * Opens the store of `MAILPLANE_DATABASE_URL`; a URL that cannot be used or a database that cannot
 * be reached is reported under the variable's name (never with the URL, which may hold a password).
 */
export async function openExampleStore(url: string): Promise<MailplaneStore> {
  try {
    return await openKyselyStore({ url });
  } catch (error) {
    throw new Error('MAILPLANE_DATABASE_URL', { cause: error });
  }
}
