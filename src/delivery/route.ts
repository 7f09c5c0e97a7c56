import type { MailplaneContext } from '../context.js';
import type { MessageRecord, SendBatchRecord } from '../store/index.js';
import type { DeliveryRoute } from './transport.js';

/**
 * Where a message leaves from. The seam the routing engine (pools, IPs, TPSPs, warm-up: issue 7)
 * plugs into; until then every message goes through the default system pool, which delivers from
 * the host's default source address (no `localAddress`, the transport's own EHLO name).
 */
export async function chooseRoute(_ctx: MailplaneContext, message: MessageRecord, _batch: SendBatchRecord): Promise<DeliveryRoute> {
  return { ipId: null, ipPoolId: message.ipPoolId, tpspId: null };
}
