// PLACEHOLDER: filled by the helper that owns this area; remove this comment.
/** Storage of suppressions. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface SuppressionStore {}
