import { describe, expect, it } from 'vitest';
import { ValidationError } from 'mailplane';
import { TemplateCompiler } from '../../src/template/renderer.js';
import { useTestApi } from '../support/api.js';

// Error messages are read by people calling the API: they say what is wrong with a field in plain
// words, never the validation library's or the template parser's own text.
describe('validation errors in plain words', () => {
  const api = useTestApi('sqlite');

  const create = (body: unknown) => api.call('POST', '/account/subaccount/', { account: api.accountKey, body });

  it.each([
    [{ name: 5 }, 'name', 'must be a string'],
    [{}, 'name', 'is required'],
    [{ name: 'Hooli', blocked: 'yes' }, 'blocked', 'has unknown field: blocked'],
    [[], '', 'must be an object'],
  ])('%j: %s %s', async (body, path, words) => {
    const answer = await create(body);
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe('VALIDATION_FAILED');
    expect(answer.body.message).toBe(
      `the body is not valid (${path && path !== 'blocked' ? `${path}: ` : ''}${words})`,
    );
    expect(answer.body.message).not.toMatch(/Invalid input|expected \w+, received|Unrecognized key/);
  });

  it('says how long a field may be', async () => {
    const answer = await create({ name: 'x'.repeat(101) });
    expect(answer.status).toBe(422);
    expect(answer.body.message).toBe('the body is not valid (name: must be at most 100 characters)');
  });
});

describe('template errors', () => {
  async function compileError(textBody: string): Promise<ValidationError> {
    const error = await new TemplateCompiler().compile({ subject: 'ok', textBody }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }

  it('keep the position and what the parser expected, without the echo of the source', async () => {
    const error = await compileError('Hello\nyou {{name}');
    expect(error.code).toBe('TEMPLATE_ERROR');
    expect(error.message).toMatch(
      /^the textBody template does not compile: Parse error on line 2, column 11: expecting 'CLOSE_RAW_BLOCK', 'CLOSE', .*, got 'INVALID'$/,
    );
    expect(error.message).not.toContain('\n');
    expect(error.message).not.toMatch(/-\^/);
    expect(error.details).toEqual([
      { path: 'textBody', message: error.message.replace('the textBody template does not compile: ', '') },
    ]);
  });

  it('name the column of a missing value', async () => {
    const error = await compileError('{{foo bar=}}');
    expect(error.message).toMatch(/Parse error on line 1, column 11: expecting .*'ID'.*, got 'CLOSE'$/);
  });

  it('keep block mismatches as Handlebars words them, with their line and column', async () => {
    const error = await compileError('{{#if a}}x{{/each}}');
    expect(error.message).toBe("the textBody template does not compile: if doesn't match each - 1:3");
  });
});
