import type { MessageRecord, SendBatchRecord } from '../store/index.js';
import type { CompiledTemplates, RenderedMessage, TemplateCompiler } from '../template/renderer.js';
import { clickUrl, openPixelUrl, unsubscribeUrl, type LinksDeps } from '../tracking/links.js';
import { trackHtml } from '../tracking/rewrite.js';

/** What this module uses of the instance: what it calls uses, {@link LinksDeps}, and nothing more. */
export type RenderDeps = LinksDeps;

/**
 * Compiled templates of recent batches: a batch's recipients are delivered together, so its
 * templates are compiled once per batch, not once per recipient. Bounded, oldest evicted first.
 * Compiles through the instance's compiler (`context.templateCompiler`), so a batch's parts come
 * from the same cache as at accept.
 */
export class TemplateCache {
  private readonly entries = new Map<string, Promise<CompiledTemplates>>();

  constructor(
    private readonly compiler: Pick<TemplateCompiler, 'compile'>,
    private readonly capacity = 500,
  ) {}

  /** The compiled templates of `batch`, compiling them on first use. */
  get(batch: SendBatchRecord): Promise<CompiledTemplates> {
    let compiled = this.entries.get(batch.id);
    if (!compiled) {
      compiled = this.compiler.compile(batch.content);
      // A failure is not kept: the batch's next message tries again (and fails the same way).
      compiled.catch(() => this.entries.delete(batch.id));
      if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(batch.id, compiled);
    }
    return compiled;
  }
}

/**
 * The subject and bodies of one message, personalised for its recipient, with its open pixel and
 * click links when the send asked for them (src/tracking/rewrite.ts).
 */
export function renderMessage(
  ctx: RenderDeps,
  templates: CompiledTemplates,
  message: MessageRecord,
  batch: SendBatchRecord,
): RenderedMessage {
  const rendered = templates.render({
    customFields: message.customFields,
    unsubscribeUrl: unsubscribeUrl(ctx, message.id),
  });
  const { trackOpens, trackClicks } = batch.content;
  if (rendered.htmlBody === undefined || (!trackOpens && !trackClicks)) return rendered;
  const htmlBody = trackHtml(rendered.htmlBody, {
    ownBaseUrl: ctx.config.trackingBaseUrl,
    ...(trackOpens && { pixelUrl: openPixelUrl(ctx, message.id) }),
    ...(trackClicks && { clickUrl: (target: string) => clickUrl(ctx, message.id, target) }),
  });
  return { ...rendered, htmlBody };
}
