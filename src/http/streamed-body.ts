/**
 * A route answer written chunk by chunk (the activity exports): a handler returns it as its
 * `body`, and {@link jsonResponse} hands its chunks to the bridge instead of serialising them,
 * so a large answer is never held in memory whole.
 */
export class StreamedBody {
  constructor(
    /** The `content-type` of the answer. */
    readonly contentType: string,
    /** The chunks, produced as the bridge writes (and so at the pace the client reads); bytes are written unchanged. */
    readonly chunks: AsyncIterable<string | Uint8Array>,
    /** Extra headers, e.g. `content-disposition`. */
    readonly headers: Record<string, string> = {},
  ) {}
}
