/**
 * SMTP transports: direct-to-MX delivery and relaying through a smart host, over mailplane's own
 * pooled SMTP client (smtp-connection.ts).
 * Exported as `mailplane/transport/smtp`.
 *
 * @packageDocumentation
 * @module mailplane/transport/smtp
 */
export { mxTransport, type MxTransportOptions } from './mx-transport.js';
export { smartHostTransport, type SmartHostTransportOptions } from './smart-host-transport.js';
export { defaultSmtpDeadlines, type SmtpDeadlines, type SmtpTimeoutOptions } from './smtp-deadlines.js';
export type { DeliveryResult, DeliveryRoute, OutboundMessage, Transport } from '../../../src/delivery/transport.js';
