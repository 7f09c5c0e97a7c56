/**
 * The webhook area's public surface: the resource's switches and URL rules, the target classifier
 * the delivery worker applies (SSRF), and the signature scheme receivers verify.
 */
export {
  WEBHOOK_TOGGLES,
  EVENT_TYPE_TOGGLES,
  toggleForEventType,
  allToggles,
  pickToggles,
} from '../lifecycle/webhook-toggles.js';
export { parseWebhookUrl, webhookUrlSchema, MAX_WEBHOOK_URL_LENGTH, type WebhookUrlResult } from './url.js';
export { classifyAddress } from '../model/address-class.js';
export {
  checkWebhookTarget,
  type TargetCategory,
  type WebhookTargetCheck,
  type WebhookTargetOptions,
} from './target.js';
export {
  signWebhookPayload,
  verifyWebhookSignature,
  standardWebhookHeaders,
  standardWebhookKey,
  STANDARD_WEBHOOK_HEADERS,
  WEBHOOK_SIGNATURE_HEADER,
  DEFAULT_SIGNATURE_TOLERANCE_SECONDS,
  type SignedBody,
  type SignatureFailure,
  type SignatureVerification,
} from './signature.js';
export { webhookService, generateWebhookSecret, WEBHOOK_SECRET_PREFIX } from './webhooks.js';
export { startReplay, REPLAY_STALE_MS, type ReplayRequest, type QueuedReplay } from './replay.js';
export { WEBHOOK_REPLAY_HEADER } from './post.js';
export { webhookToWire, webhookWithSecretToWire } from './webhook-wire.js';
