import type { MailplaneContext } from '../context.js';
import type { MessageRecord, SendBatchRecord } from '../store/index.js';
import { compileTemplates, type CompiledTemplates, type RenderedMessage } from '../template/renderer.js';
import { unsubscribeUrl } from '../tracking/links.js';

/**
 * Compiled templates of recent batches: a batch's recipients are delivered together, so its
 * templates are compiled once per batch, not once per recipient. Bounded, oldest evicted first.
 */
export class TemplateCache {
  private readonly entries = new Map<string, CompiledTemplates>();

  constructor(private readonly capacity = 500) {}

  /** The compiled templates of `batch`, compiling them on first use. */
  get(batch: SendBatchRecord): CompiledTemplates {
    let compiled = this.entries.get(batch.id);
    if (!compiled) {
      compiled = compileTemplates(batch.content);
      if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(batch.id, compiled);
    }
    return compiled;
  }
}

/** The subject and bodies of one message, personalised for its recipient. */
export function renderMessage(ctx: MailplaneContext, templates: CompiledTemplates, message: MessageRecord): RenderedMessage {
  return templates.render({ customFields: message.customFields, unsubscribeUrl: unsubscribeUrl(ctx, message.id) });
}
