/**
 * Where mailplane writes what it wants an operator to know. Fields are structured; mailplane
 * never puts a key, password, message body or request header into them.
 */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A logger that writes one JSON line per entry to stderr. */
export const consoleLogger: Logger = {
  info: (message, fields) => console.error(JSON.stringify({ level: 'info', message, ...fields })),
  warn: (message, fields) => console.error(JSON.stringify({ level: 'warn', message, ...fields })),
  error: (message, fields) => console.error(JSON.stringify({ level: 'error', message, ...fields })),
};

/** A logger that discards everything (tests, embedding hosts with their own logging). */
export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
