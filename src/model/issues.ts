import type { z } from 'zod';

type RawIssue = z.core.$ZodRawIssue;

/** The name of a value a field must be, as a sentence says it. */
const KINDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  bigint: 'an integer',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  record: 'an object',
  tuple: 'a list',
  date: 'a date',
  null: 'null',
  nan: 'NaN',
};

const FORMATS: Record<string, string> = {
  email: 'an email address',
  url: 'a URL',
  uuid: 'a UUID',
  datetime: 'an ISO 8601 date and time',
  date: 'an ISO 8601 date (YYYY-MM-DD)',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  base64: 'base64 text',
};

/** `5` or `5n` as a reader writes it. */
const shown = (value: unknown) => (typeof value === 'bigint' ? value.toString() : String(value));

/** An allowed value: strings quoted, numbers as they are. */
const literal = (value: unknown) => (typeof value === 'string' ? JSON.stringify(value) : shown(value));

function sizeLimit(issue: RawIssue & { code: 'too_small' | 'too_big' }): string {
  const small = issue.code === 'too_small';
  const limit = small ? issue.minimum : issue.maximum;
  const exact = 'exact' in issue && issue.exact;
  const inclusive = issue.inclusive !== false;
  switch (issue.origin) {
    case 'string':
      if (small && !exact && Number(limit) === 1) return 'must not be empty';
      return `must be ${exact ? 'exactly' : small ? 'at least' : 'at most'} ${shown(limit)} characters long`;
    case 'array':
    case 'set':
      if (small && !exact && Number(limit) === 1) return 'must not be empty';
      return `must have ${exact ? 'exactly' : small ? 'at least' : 'at most'} ${shown(limit)} item${Number(limit) === 1 ? '' : 's'}`;
    default:
      if (small) return inclusive ? `must be at least ${shown(limit)}` : `must be greater than ${shown(limit)}`;
      return inclusive ? `must be at most ${shown(limit)}` : `must be less than ${shown(limit)}`;
  }
}

/**
 * A zod error map that says what is wrong with a field in plain words ("must be a string",
 * "must be one of: 0, 1"), in place of the validation library's own text ("Invalid input: expected
 * string, received number"), which reads as an implementation detail in an API error. Messages a
 * schema states itself take precedence over it (zod's rule for per-parse error maps).
 *
 * @example
 * schema.safeParse(value, { error: plainIssueMessage });
 */
export function plainIssueMessage(issue: RawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${KINDS[issue.expected] ?? issue.expected}`;
    case 'too_small':
    case 'too_big':
      return sizeLimit(issue);
    case 'invalid_format':
      if (issue.format === 'regex') return 'is not in the expected format';
      return `must be ${FORMATS[issue.format] ?? `a valid ${issue.format}`}`;
    case 'not_multiple_of':
      return `must be a multiple of ${shown(issue.divisor)}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${literal(issue.values[0])}`
        : `must be one of: ${issue.values.map(literal).join(', ')}`;
    case 'unrecognized_keys':
      return `has unknown field${issue.keys.length === 1 ? '' : 's'}: ${issue.keys.join(', ')}`;
    case 'invalid_union':
      return 'does not match any of the accepted forms';
    case 'invalid_key':
      return 'has a key that is not valid';
    case 'invalid_element':
      return 'has an element that is not valid';
    default:
      return 'is not valid';
  }
}
