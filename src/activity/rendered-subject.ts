import { z } from 'zod';
import { messageItemWireSchema } from '../sending/message-wire.js';
import type { MessageRecord, SendBatchRecord } from '../store/index.js';
import { unsubscribeUrl, type LinksDeps } from '../tracking/links.js';
import type { TemplateCompiler } from '../template/renderer.js';

/** What this module uses of the instance: what it calls uses ({@link LinksDeps}), and the fields below. */
export interface RenderedSubjectDeps extends LinksDeps {
  readonly templateCompiler: TemplateCompiler;
}

/**
 * mailplane's addition to a message as the activity routes and `GET …/message/{id}` answer it: the
 * subject as its recipient got it (`subject` is what was accepted, a template such as
 * `Welcome, {{firstName}}`). Not stored: rendered on reading, as delivery renders it.
 */
const renderedSubjectShape = { renderedSubject: z.string() };

/** An activity item ({@link messageItemWireSchema}) with its `renderedSubject`. */
export const messageItemViewSchema = messageItemWireSchema.extend(renderedSubjectShape);

/**
 * The subject of `message` rendered for its recipient: its custom fields and its unsubscribe link,
 * through the instance's template compiler (its cache holds a bulk send's subject once). A subject
 * without `{{` renders to itself and is not compiled. The subject compiled when it was accepted; should
 * it no longer (a limit lowered since), the accepted text is answered rather than failing the read.
 */
export async function renderedSubject(
  ctx: RenderedSubjectDeps,
  message: MessageRecord,
  batch: SendBatchRecord,
): Promise<string> {
  const subject = batch.content.subject;
  if (!subject.includes('{{')) return subject;
  try {
    const compiled = await ctx.templateCompiler.compile({ subject });
    return compiled.render({ customFields: message.customFields, unsubscribeUrl: unsubscribeUrl(ctx, message.id) })
      .subject;
  } catch {
    return subject;
  }
}
