/**
 * Bodies shared by a bulk send. When a batch's bodies do not vary per recipient (its html, text and
 * amp templates use no variable, not even `{{unsubscribe}}`: the per-recipient link then travels
 * only in the List-Unsubscribe header), every message of the batch has the same MIME body. It is
 * composed, base64-encoded and DKIM-hashed once; each message then only builds and signs its own
 * header block. Real MTAs precompute body hashes the same way.
 */
import type { SendBatchRecord } from '../store/index.js';

/** A body as MailComposer gets it: the text, or its UTF-8 bytes when nodemailer would base64 it anyway. */
export type ComposerBody = string | Buffer;

/** The bodies MailComposer gets (src/delivery/compose.ts): the real ones, or stand-ins when the body is shared. */
export interface ComposerBodies {
  html?: ComposerBody;
  text?: ComposerBody;
  amp?: ComposerBody;
  attachments: { filename: string; content: string | Buffer; encoding?: string }[];
}

/** A batch's composed MIME body (everything after the top-level header block's blank line). */
export interface SharedBody {
  /** Multipart boundary base the body was composed with: each message's headers must use it too. */
  baseBoundary: string;
  body: Buffer;
  /** DKIM `bh=` of `body`. */
  bodyHash: string;
  /** Small bodies of the same encodings that give each message's top-level headers without the real ones. */
  standIns: ComposerBodies;
}

/** Cache entry: `null` when the batch turned out not to be shareable (composed per message). */
type Entry = Promise<SharedBody | null>;

/**
 * Whether the messages of `batch` share one body: true when no body template has a variable. A
 * template without `{{` renders to itself, so this errs only towards composing per message.
 * Open and click tracking rewrite the HTML body per recipient, so a tracked batch with an HTML body
 * is never shared.
 */
export function hasSharedBody(batch: SendBatchRecord): boolean {
  const { htmlBody, textBody, ampBody, trackOpens, trackClicks } = batch.content;
  // Tracked HTML carries each recipient's own pixel and click links.
  if (htmlBody !== undefined && (trackOpens || trackClicks)) return false;
  return [htmlBody, textBody, ampBody].every((body) => body === undefined || !body.includes('{{'));
}

/**
 * Shared bodies of recent batches, least recently used evicted first, bounded in entries and in
 * bytes, so memory stays flat however many recipients and batches are drained. Concurrent
 * deliveries of one batch wait for the same composition rather than each composing it.
 */
export class SharedBodyCache {
  private readonly entries = new Map<string, { entry: Entry; bytes: number }>();
  private bytes = 0;

  /**
   * @param maxEntries batches held at once
   * @param maxBytes total body bytes held; a body larger than a quarter of it is not cached
   */
  constructor(
    private readonly maxEntries = 32,
    private readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  /** The shared body of `batchId`, composing it with `compose` on first use; `null` if not shareable. */
  get(batchId: string, compose: () => Promise<SharedBody | null>): Entry {
    const hit = this.entries.get(batchId);
    if (hit) {
      this.entries.delete(batchId);
      this.entries.set(batchId, hit);
      return hit.entry;
    }
    const slot = { entry: compose(), bytes: 0 };
    this.entries.set(batchId, slot);
    slot.entry.then(
      (shared) => {
        if (this.entries.get(batchId) !== slot) return; // evicted meanwhile
        slot.bytes = shared?.body.length ?? 0;
        if (slot.bytes > this.maxBytes / 4) {
          this.entries.delete(batchId);
          return;
        }
        this.bytes += slot.bytes;
        this.evict();
      },
      // A failed composition is not cached: the next message of the batch tries again.
      () => {
        if (this.entries.get(batchId) === slot) this.entries.delete(batchId);
      },
    );
    this.evict();
    return slot.entry;
  }

  /** Bytes of bodies held (for tests and memory reports). */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private evict(): void {
    while (this.entries.size > this.maxEntries || this.bytes > this.maxBytes) {
      const [oldestId, oldest] = this.entries.entries().next().value!;
      this.entries.delete(oldestId);
      this.bytes -= oldest.bytes;
    }
  }
}
