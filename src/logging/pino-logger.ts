/**
 * The {@link Logger} on pino: one JSON object per line (`level` as a word, `time` ISO 8601,
 * `message`, then the entry's fields), the format log collectors index without configuration.
 */
import { pino, type DestinationStream } from 'pino';
import type { Logger } from './logger.js';

/** The levels `MAILPLANE_LOG_LEVEL` accepts, quietest last. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/** A level of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Options of {@link pinoLogger}. */
export interface PinoLoggerOptions {
  /** The least severe level written (default `info`); e.g. `process.env.MAILPLANE_LOG_LEVEL`. */
  level?: string;
  /** Where the lines go (default stdout); tests pass a stream to read them. */
  destination?: DestinationStream;
}

/**
 * Field names whose values are replaced by `[redacted]` wherever they appear at the top level or
 * one level down: mailplane never logs secrets, and this keeps a host's own fields from doing so.
 */
const REDACTED = ['password', 'pass', 'apiKey', 'apikey', 'authorization', 'secret', 'token'];

/** Whether `level` is one of {@link LOG_LEVELS}. */
export function isLogLevel(level: string): level is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(level);
}

/**
 * A {@link Logger} writing structured JSON lines through pino.
 *
 * @example
 * createMailplane({ store, secret, logger: pinoLogger({ level: process.env.MAILPLANE_LOG_LEVEL }) });
 */
export function pinoLogger(options: PinoLoggerOptions = {}): Logger {
  const level = options.level === undefined || options.level === '' ? 'info' : options.level.toLowerCase();
  if (!isLogLevel(level)) throw new Error(`unknown log level "${options.level}": use one of ${LOG_LEVELS.join(', ')}`);
  const log = pino(
    {
      level,
      messageKey: 'message',
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...REDACTED, ...REDACTED.map((name) => `*.${name}`)], censor: '[redacted]' },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
  return {
    info: (message, fields) => log.info(fields ?? {}, message),
    warn: (message, fields) => log.warn(fields ?? {}, message),
    error: (message, fields) => log.error(fields ?? {}, message),
  };
}
