import type { z } from 'zod';
import { ValidationError, type FieldIssue } from '../errors.js';
import { plainIssueMessage } from '../model/issues.js';

/** zod issues as the {@link FieldIssue} list of a 422 body (parse with {@link plainIssueMessage} for plain words). */
export function toFieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
}

/**
 * Validates `value` against `schema`, throwing a 422 {@link ValidationError} that names each field
 * at fault in plain words (`to.0.email: must be an email address`). `what` says which part of the
 * request it was ("body", "query").
 */
export function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value, { error: plainIssueMessage });
  if (result.success) return result.data;
  const issues = toFieldIssues(result.error);
  const first = issues[0];
  const where = first && first.path !== '' ? ` (${first.path}: ${first.message})` : first ? ` (${first.message})` : '';
  throw new ValidationError(`the ${what} is not valid${where}`, issues);
}
