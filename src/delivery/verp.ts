/**
 * VERP (variable envelope return path): the envelope sender of each message names the message, so
 * a bounce that reaches the return-path host says which message it is about without reading its
 * body. The composer writes the address (src/delivery/compose.ts); the bounce receiver and the
 * sandbox's mail catcher read it back (src/bounce/receiver.ts, src/sandbox/catcher.ts).
 */

/** The VERP envelope sender of a message: bounces to it name the message they are about. */
export function verpAddress(messageId: string, returnPathHost: string): string {
  return `b+${messageId}@${returnPathHost}`;
}

/** The message id in a VERP address made by {@link verpAddress}, or `null`. */
export function messageIdOfVerp(address: string): string | null {
  const match = /^b\+([0-9a-f-]{36})@/i.exec(address);
  return match ? match[1]!.toLowerCase() : null;
}
