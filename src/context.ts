import type { ApiDeps } from './http/route.js';
import type { Transport } from './delivery/transport.js';
import type { TpspTransportFactory } from './delivery/routing-transports.js';

/**
 * Every collaborator of one mailplane instance, as `createMailplane` builds them: the composition
 * root's record, and only its. It is what the API's handlers use ({@link ApiDeps}, whose fields say
 * what each is) and the transports, which only delivery uses. Every other module names what it uses
 * in an interface of its own (`AcceptDeps`, `DeliveryServiceDeps`, …, each a few of these fields), so
 * that no function outside the composition root takes the whole instance and no module depends on
 * every other through this file (test/unit/architecture.test.ts holds both).
 */
export interface MailplaneContext extends ApiDeps {
  /** Where delivery hands signed messages (e.g. `mxTransport` from `mailplane/transport/smtp`); none: messages wait. */
  readonly transport?: Transport;
  /** Builds the transport of a TPSP that a pool routes to (`MailplaneOptions.tpspTransport`); none: such messages wait. */
  readonly tpspTransport?: TpspTransportFactory;
}
