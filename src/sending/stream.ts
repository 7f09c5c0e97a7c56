/**
 * A send's priority class (docs/shaping.md, "Fair queues and priority"): `transactional` mail is
 * delivered before every other job, `bulk` after. The sender names it (the body's `stream`, the
 * relay's `X-Mailplane-Stream` header); without a name, the number of envelope recipients decides.
 */
import { ValidationError } from '../errors.js';
import type { JobStream } from '../store/index.js';

/** The classes a send may name. */
export const SEND_STREAMS: readonly JobStream[] = ['transactional', 'bulk'];

/**
 * A send with at most this many envelope recipients (every `to`, cc and bcc) and no `stream` of its
 * own is transactional; a larger one is bulk. A password reset or a receipt has one recipient; a
 * campaign has hundreds.
 */
export const TRANSACTIONAL_MAX_RECIPIENTS = 10;

/** What {@link sendStream} reads of a send request. */
export interface StreamedSend {
  stream?: string | undefined;
  to: readonly { cc?: readonly unknown[] | undefined; bcc?: readonly unknown[] | undefined }[];
}

/**
 * The class of `request`: the one it names, or by {@link TRANSACTIONAL_MAX_RECIPIENTS}. A name that
 * is not a class is refused (422 `INVALID_STREAM`) before anything is stored; `field` names where
 * the sender gave it (the body's `stream`, the relay's header).
 */
export function sendStream(request: StreamedSend, field = 'stream'): JobStream {
  const named = request.stream;
  if (named !== undefined) {
    if ((SEND_STREAMS as readonly string[]).includes(named)) return named as JobStream;
    throw new ValidationError(
      `${field} must be "transactional" or "bulk", not ${JSON.stringify(named.slice(0, 40))}`,
      [{ path: field, message: 'must be "transactional" or "bulk"' }],
      'INVALID_STREAM',
    );
  }
  const recipients = request.to.reduce((sum, to) => sum + 1 + (to.cc?.length ?? 0) + (to.bcc?.length ?? 0), 0);
  return recipients <= TRANSACTIONAL_MAX_RECIPIENTS ? 'transactional' : 'bulk';
}
