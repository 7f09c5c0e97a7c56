// PLACEHOLDER: filled by the helper that owns this area; remove this comment.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface SuppressionTables {}
