/** SMTP replies (RFC 5321 4.2): a three-digit code, then `-` on every line but the last. */

/** A whole reply: its code and every line of it, joined with `\n`. */
export interface SmtpReply {
  code: number;
  text: string;
}

/**
 * The code of one reply line and whether it is the reply's last line, or `null` when the line is
 * not an SMTP reply line at all (the server speaks something else).
 */
export function readReplyLine(line: string): { code: number; last: boolean } | null {
  const match = /^([2-5]\d\d)(?:([ -]).*)?$/.exec(line);
  if (!match) return null;
  return { code: Number(match[1]), last: match[2] !== '-' };
}
