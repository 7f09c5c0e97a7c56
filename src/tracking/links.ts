import type { SecretBox } from '../crypto/secrets.js';
import type { MailplaneConfig } from '../mailplane-config.js';

/** What this module uses of the instance: its own narrow view, which `createMailplane`'s collaborators satisfy. */
export interface LinksDeps {
  readonly config: MailplaneConfig;
  readonly secrets: SecretBox;
}
/** What a tracking link does. */
export type LinkAction = 'unsubscribe' | 'open' | 'click';

const ACTION_CODES: Record<LinkAction, string> = { unsubscribe: 'u', open: 'o', click: 'c' };

/**
 * A signed token naming a message and an action: `<action>.<messageId>.<signature>`. The signature
 * covers both, so a token for one message or action cannot be turned into another; no state is
 * kept, and a token stays valid as long as the instance secret does.
 */
export function signLinkToken(ctx: LinksDeps, action: LinkAction, messageId: string): string {
  const data = `${ACTION_CODES[action]}.${messageId}`;
  return `${data}.${ctx.secrets.sign(data)}`;
}

/** The message id a token was signed for, when it is valid for `action`; otherwise `null`. */
export function verifyLinkToken(ctx: LinksDeps, action: LinkAction, token: string): string | null {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== ACTION_CODES[action]) return null;
  const [code, messageId, signature] = parts as [string, string, string];
  return ctx.secrets.verify(`${code}.${messageId}`, signature) ? messageId : null;
}

/** The recipient's unsubscribe URL, rendered by `{{unsubscribe}}` and sent in `List-Unsubscribe`. */
export function unsubscribeUrl(ctx: LinksDeps, messageId: string): string {
  return `${ctx.config.trackingBaseUrl}/unsubscribe/${signLinkToken(ctx, 'unsubscribe', messageId)}`;
}

/** The open-tracking image of a message: `<trackingBaseUrl>/open/<token>`. */
export function openPixelUrl(ctx: LinksDeps, messageId: string): string {
  return `${ctx.config.trackingBaseUrl}/open/${signLinkToken(ctx, 'open', messageId)}`;
}

const clickData = (messageId: string, target: string) => `${ACTION_CODES.click}.${messageId}.${target}`;

/**
 * The click-tracking link of `target` in a message: `<trackingBaseUrl>/click/<token>?url=<target>`.
 * The token's signature covers the message and the target, so the link cannot be turned into a
 * redirect to anywhere else (no open redirect) nor credited to another message.
 */
export function clickUrl(ctx: LinksDeps, messageId: string, target: string): string {
  const token = `${ACTION_CODES.click}.${messageId}.${ctx.secrets.sign(clickData(messageId, target))}`;
  return `${ctx.config.trackingBaseUrl}/click/${token}?url=${encodeURIComponent(target)}`;
}

/** The message id of a click link whose token was signed for `target`; otherwise `null`. */
export function verifyClickToken(ctx: LinksDeps, token: string, target: string): string | null {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== ACTION_CODES.click) return null;
  const [, messageId, signature] = parts as [string, string, string];
  return ctx.secrets.verify(clickData(messageId, target), signature) ? messageId : null;
}
