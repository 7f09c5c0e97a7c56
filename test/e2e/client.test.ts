/**
 * The typed client (mailplane/client) against the example server, on SQLite and PostgreSQL: the
 * calls a user makes first (a sub-account, a domain, a send), an idempotent send asked twice, and
 * the API's errors as MailplaneApiError.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMailplaneClient, type MailplaneClient } from 'mailplane/client';
import { apiFailure } from '../support/api-failure.js';
import { freshDatabaseUrl, storeKinds } from '../support/databases.js';
import { startExample, type ExampleServer } from '../support/example-server.js';

describe.each(storeKinds)('the typed client against the example server on %s', (kind) => {
  let database: Awaited<ReturnType<typeof freshDatabaseUrl>>;
  let server: ExampleServer;
  let account: MailplaneClient;
  let subAccount: MailplaneClient;

  beforeAll(async () => {
    database = await freshDatabaseUrl(kind);
    server = await startExample('express', { MAILPLANE_DATABASE_URL: database.url });
    account = createMailplaneClient({ baseUrl: server.baseUrl, accountApiKey: server.accountKey });
    const { data: created } = await account.POST('/account/subaccount', { body: { name: 'Acme' } });
    subAccount = createMailplaneClient({ baseUrl: server.baseUrl, subAccountApiKey: created.apiKey });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('adds and verifies a domain, sends once with an idempotency key however often asked, and reads the delivery', async () => {
    const { data: domain } = await subAccount.POST('/subaccount/domain', { body: { name: 'acme.test' } });
    expect(domain.name).toBe('acme.test');
    const { data: verified } = await subAccount.POST('/subaccount/domain/{domain_id}/verify', {
      params: { path: { domain_id: String(domain.id) } },
    });
    expect(verified.verified).toBe(true);

    const email = {
      from: { email: 'hello@acme.test', name: 'Acme' },
      to: [{ email: 'ada@example.com', name: 'Ada', customFields: { firstName: 'Ada' } }],
      subject: 'Welcome, {{firstName}}',
      textBody: 'Hello {{firstName}}, your account is ready.',
    };
    const first = await subAccount.sendEmail(email, { idempotencyKey: 'welcome-ada' });
    const again = await subAccount.sendEmail(email, { idempotencyKey: 'welcome-ada' });
    expect(first.replayed).toBe(false);
    expect(again.replayed).toBe(true);
    expect(again.data).toEqual(first.data);
    const messageId = first.data[0]!.messageId!;
    expect(messageId).toEqual(expect.any(String));

    // One message was sent, and it arrives DKIM-signed in the sandbox.
    const { data: messages } = await subAccount.GET('/subaccount/message', { params: { query: { limit: '10' } } });
    expect(messages.items.map((m) => m.messageID)).toEqual([messageId]);
    await vi.waitFor(
      async () => {
        const { data: message } = await account.GET('/account/message/{message_id}', {
          params: { path: { message_id: messageId } },
        });
        expect(message.status).toBe('delivered');
      },
      { timeout: 20_000, interval: 200 },
    );
    const { data: captured } = await account.GET('/account/sandbox/message', { params: { query: { limit: '1' } } });
    expect(captured[0]).toMatchObject({ messageId, subject: 'Welcome, Ada' });
  });

  it('sends without a key of its own: the client names the send, so its retries never send twice', async () => {
    const answer = await subAccount.sendEmail({
      from: { email: 'hello@acme.test' },
      to: [{ email: 'grace@example.com' }],
      subject: 'Hi',
      textBody: 'Hi Grace',
    });
    expect(answer.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.replayed).toBe(false);
  });

  it('throws MailplaneApiError with the status, the code, the message and the request id', async () => {
    const notFound = await apiFailure(
      account.GET('/account/subaccount/{subaccount_id}', { params: { path: { subaccount_id: '2000000' } } }),
    );
    expect(notFound).toMatchObject({ status: 406, code: 'SUBACCOUNT_NOT_FOUND', requestId: expect.any(String) });

    const invalid = await apiFailure(subAccount.POST('/subaccount/domain', { body: { name: 'not a domain name' } }));
    expect(invalid.status).toBe(422);
    expect(invalid.code).toBe('VALIDATION_FAILED');
    expect(invalid.message).toMatch(
      /^422 VALIDATION_FAILED: .+ \(POST http:\/\/127\.0\.0\.1:\d+\/api\/v1\/subaccount\/domain\)$/,
    );
    expect(invalid.details).toEqual([expect.objectContaining({ path: 'name' })]);

    // The sub-account client has no account key: the server says which key is missing.
    const unauthenticated = await apiFailure(subAccount.GET('/account/subaccount'));
    expect(unauthenticated).toMatchObject({ status: 401, code: 'MISSING_API_KEY' });

    // The reused idempotency key with another body.
    const reused = await apiFailure(
      subAccount.sendEmail(
        { from: { email: 'hello@acme.test' }, to: [{ email: 'ada@example.com' }], subject: 'Other', textBody: 'x' },
        { idempotencyKey: 'welcome-ada' },
      ),
    );
    expect(reused).toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
  });
});
