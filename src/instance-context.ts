/**
 * How mailplane's own modules reach the collaborators of an instance (its {@link MailplaneContext})
 * without them being part of the public `Mailplane` type: the instance carries its context under a
 * symbol that only this module names, and `src/index.ts` exports neither. The relay, the bounce
 * receiver and the dashboard take the `Mailplane` users hold and look the context up here.
 */
import type { MailplaneContext } from './context.js';

/** The property a `createMailplane` instance keeps its context under; a constant, not state. */
export const MAILPLANE_CONTEXT: unique symbol = Symbol('mailplane.context');

/** An object that carries a context under {@link MAILPLANE_CONTEXT} (what `createMailplane` returns). */
export interface WithContext {
  readonly [MAILPLANE_CONTEXT]: MailplaneContext;
}

/**
 * The context of an instance made by `createMailplane`; throws a `TypeError` for anything else
 * (an object a caller built to look like one has no context to give).
 */
export function contextOf(mailplane: object): MailplaneContext {
  const context = (mailplane as Partial<WithContext>)[MAILPLANE_CONTEXT];
  if (context === undefined) throw new TypeError('expected a mailplane instance made by createMailplane()');
  return context;
}
