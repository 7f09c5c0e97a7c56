import type { MailplaneContext } from '../context.js';

/** What a tracking link does. */
export type LinkAction = 'unsubscribe' | 'open' | 'click';

const ACTION_CODES: Record<LinkAction, string> = { unsubscribe: 'u', open: 'o', click: 'c' };

/**
 * A signed token naming a message and an action: `<action>.<messageId>.<signature>`. The signature
 * covers both, so a token for one message or action cannot be turned into another; no state is
 * kept, and a token stays valid as long as the instance secret does.
 */
export function signLinkToken(ctx: MailplaneContext, action: LinkAction, messageId: string): string {
  const data = `${ACTION_CODES[action]}.${messageId}`;
  return `${data}.${ctx.secrets.sign(data)}`;
}

/** The message id a token was signed for, when it is valid for `action`; otherwise `null`. */
export function verifyLinkToken(ctx: MailplaneContext, action: LinkAction, token: string): string | null {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== ACTION_CODES[action]) return null;
  const [code, messageId, signature] = parts as [string, string, string];
  return ctx.secrets.verify(`${code}.${messageId}`, signature) ? messageId : null;
}

/** The recipient's unsubscribe URL, rendered by `{{unsubscribe}}` and sent in `List-Unsubscribe`. */
export function unsubscribeUrl(ctx: MailplaneContext, messageId: string): string {
  return `${ctx.config.trackingBaseUrl}/unsubscribe/${signLinkToken(ctx, 'unsubscribe', messageId)}`;
}
