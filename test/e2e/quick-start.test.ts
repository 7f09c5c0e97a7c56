/**
 * The README's quick start, run as written: its commands are read from README.md and typed into
 * one bash session against each example server in sandbox mode (its default on a development
 * machine). Then the sandbox's bounce@, defer@ and complaint@ recipients, each to its final state
 * with events, stats and webhooks.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bashSession } from '../support/bash-session.js';
import { asPastedAgainst, startExample, type ExampleServer } from '../support/example-server.js';
import { codeBlock } from '../support/markdown-blocks.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the JSON shapes
type Json = any;

/** The lines of the README's quick-start block, comments dropped: each is one command, typed as pasted. */
function quickStartCommands(): string[] {
  return codeBlock('README.md', 'quick-start')
    .code.split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'));
}

describe.each(['express', 'koa'] as const)('the README quick start on the %s example, in sandbox mode', (name) => {
  let server: ExampleServer;
  let hooks: WebhookReceiver;
  beforeAll(async () => {
    hooks = await startWebhookReceiver();
    // Through tsx, as `npm start` runs it: the README's first command, not this run's bundle.
    server = await startExample(
      name,
      { MAILPLANE_WEBHOOKS_ALLOW_PRIVATE: '1', MAILPLANE_RETRY_DELAYS_MS: '200,200' },
      { throughTsx: true },
    );
  });
  afterAll(async () => {
    await server?.stop();
    await hooks?.close();
  });

  const call = async (
    path: string,
    key: Record<string, string> = { 'x-account-apikey': server.accountKey },
    init: RequestInit = {},
  ) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...key },
    });
    return (await response.json()) as Json;
  };
  const message = (id: string) => call(`/account/message/${id}`);
  const waitFor = <T>(check: () => Promise<T>) => vi.waitFor(check, { timeout: 20_000, interval: 100 });

  it('says it runs in sandbox mode and what that means', () => {
    expect(server.output()).toMatch(
      /SANDBOX mode: domains under \.test and \.example verify at once .* delivered to the local mail catcher/,
    );
  });

  it('delivers a DKIM-verified personalised message into the sandbox with the README commands, and the others end in their states', async () => {
    expect(
      (
        await call('/account/webhook', undefined, {
          method: 'POST',
          body: JSON.stringify({
            url: hooks.url,
            processed: true,
            dropped: true,
            delivered: true,
            hardBounced: true,
            softBounced: true,
            spam: true,
          }),
        })
      ).id,
    ).toBeGreaterThan(0);
    const commands = quickStartCommands();
    expect(commands.filter((line) => line.startsWith('curl') || /^[A-Z]+=\$\(curl/.test(line))).toHaveLength(5);
    const bash = bashSession({ KEY: server.accountKey });
    try {
      const outputs: string[] = [];
      // Typed as pasted, the block waits for the delivery itself before it reads the sandbox.
      for (const command of commands) {
        const { output, status } = await bash.run(asPastedAgainst(command, server));
        expect(status, `${command}\n${output}`).toBe(0);
        outputs.push(output);
      }
      const [sub, msg] = [(await bash.run('echo $SUB')).output, (await bash.run('echo $MSG')).output];
      expect(sub).toMatch(/^mpsk_|^\S{20,}$/);
      const verified = JSON.parse(outputs.find((o) => o.includes('"verified"'))!);
      expect(verified).toMatchObject({ name: 'acme.test', verified: true });
      const captured = JSON.parse(outputs.find((o) => o.includes('"rcptTo"'))!);
      expect(captured).toMatchObject({
        messageId: msg,
        rcptTo: ['ada@example.com'],
        subject: 'Welcome, Ada',
        dkim: { result: 'pass', domain: 'acme.test' },
      });
      expect(captured.raw).toContain('Hello Ada, your account is ready.');
      const last = outputs.at(-1)!;
      const events = JSON.parse(last.slice(0, last.indexOf('}[') + 1));
      expect(events.events.map((e: { type: number }) => e.type)).toEqual([0, 2]); // Processed, Delivered
      const stats = JSON.parse(last.slice(last.indexOf('}[') + 1));
      expect(stats[0].stat).toMatchObject({ processed: 1, delivered: 1 });

      // bounce@, defer@ and complaint@, from the same sub-account
      const sent: Json[] = await call(
        '/subaccount/email',
        { 'x-subaccount-apikey': sub },
        {
          method: 'POST',
          body: JSON.stringify({
            from: { email: 'hello@acme.test' },
            to: ['bounce', 'defer', 'complaint'].map((l) => ({ email: `${l}@example.com` })),
            subject: 'Outcomes',
            textBody: 'Hi',
          }),
        },
      );
      const id = (local: string) => sent.find((s) => s.to === `${local}@example.com`).messageId as string;
      const types = async (local: string) => (await message(id(local))).events.map((e: { type: number }) => e.type);
      await waitFor(async () => expect((await message(id('bounce'))).status).toBe('hard_bounced'));
      expect(await types('bounce')).toContain(4);
      // defer@: 421 4.7.0 on every attempt, a policy deferral, so dropped once the retries run out.
      await waitFor(async () => expect((await message(id('defer'))).status).toBe('smtp_dropped'));
      expect((await types('defer')).filter((type: number) => type !== 3)).toEqual([0, 1]);
      expect((await message(id('defer'))).events[1]).toMatchObject({ type: 3, smtpCode: 421 });
      await waitFor(async () => expect(await types('complaint')).toEqual([0, 2, 8]));
      const today = new Date().toISOString().slice(0, 10);
      await waitFor(async () =>
        expect(
          (await call(`/subaccount/stat?from=${today}&to=${today}`, { 'x-subaccount-apikey': sub }))[0].stat,
        ).toMatchObject({ processed: 4, delivered: 2, hardBounced: 1, smtpDropped: 1, spam: 1 }),
      );
      await waitFor(async () => {
        const about = (messageId: string) =>
          hooks.received.filter((d) => d.body.includes(messageId)).map((d) => d.json.event.type);
        expect(about(msg)).toEqual(expect.arrayContaining([0, 2]));
        expect(about(id('bounce'))).toContain(4);
        expect(about(id('defer'))).toEqual(expect.arrayContaining([3, 1]));
        expect(about(id('complaint'))).toContain(8);
      });
    } finally {
      bash.close();
    }
  });
});
