import { describe, expect, it } from 'vitest';
import { createMailplane, MailplaneOptionsError, type MailplaneOptions } from 'mailplane';
import { createMemoryStore } from 'mailplane/testing';

const SECRET = 'a-secret-of-well-over-thirty-two-characters';

/** What createMailplane throws for `options`, or undefined when it accepts them (closing the instance). */
async function refusal(options: Record<string, unknown>): Promise<MailplaneOptionsError | undefined> {
  try {
    const mailplane = createMailplane({ store: createMemoryStore(), secret: SECRET, ...options } as MailplaneOptions);
    await mailplane.close();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(MailplaneOptionsError);
    return error as MailplaneOptionsError;
  }
}

// Each bad option, the path the error names, and words of what it accepts.
const BAD_OPTIONS: [string, Record<string, unknown>, string, RegExp][] = [
  ['a missing secret', { secret: undefined }, 'secret', /at least 32 characters.*openssl rand -hex 32/],
  ['a short secret', { secret: 'short' }, 'secret', /at least 32 characters/],
  ['no store', { store: undefined }, 'store', /MailplaneStore/],
  ['a store that is not one', { store: { close: 1 } }, 'store', /openKyselyStore/],
  ['a tracking URL that is no URL', { trackingBaseUrl: 'mail.example.com/t' }, 'trackingBaseUrl', /http/],
  ['a tracking URL of another scheme', { trackingBaseUrl: 'ftp://example.com/t' }, 'trackingBaseUrl', /https/],
  ['a rate limit of 0', { rateLimits: { requestsPerMinute: 0 } }, 'rateLimits.requestsPerMinute', /at least 1/],
  [
    'a rate limit that is NaN',
    { rateLimits: { recipientsPerMinute: Number('abc') } },
    'rateLimits.recipientsPerMinute',
    /whole number/,
  ],
  ['rate limits as true', { rateLimits: true }, 'rateLimits', /false, or \{ requestsPerMinute/],
  [
    'a DKIM selector with a space',
    { domains: { dkimSelector: 'bad selector' } },
    'domains.dkimSelector',
    /one DNS label/,
  ],
  [
    'a return-path label with a dot',
    { domains: { returnPathLabel: 'a.b' } },
    'domains.returnPathLabel',
    /one DNS label/,
  ],
  [
    'a tracking target without a dot',
    { domains: { trackingTarget: 'localhost' } },
    'domains.trackingTarget',
    /host name/,
  ],
  ['a grace of 0 days', { domains: { dkimRotationGraceDays: 0 } }, 'domains.dkimRotationGraceDays', /at least 1/],
  ['a DKIM key of 512 bits', { domains: { dkimKeyBits: 512 } }, 'domains.dkimKeyBits', /1024 or 2048/],
  [
    'a DNS server given by name',
    { dns: { servers: [{ host: 'dns.google', port: 53 }] } },
    'dns.servers.0.host',
    /IPv4 or IPv6/,
  ],
  ['a DNS timeout of -1', { dns: { timeoutMs: -1 } }, 'dns.timeoutMs', /milliseconds/],
  ['an MX port of 70000', { delivery: { mxPort: 70_000 } }, 'delivery.mxPort', /from 1 to 65535/],
  [
    'retry delays that are NaN',
    { delivery: { retryDelaysMs: [Number.NaN] } },
    'delivery.retryDelaysMs.0',
    /milliseconds/,
  ],
  [
    'retry delays that are not a list',
    { delivery: { retryDelaysMs: 600_000 } },
    'delivery.retryDelaysMs',
    /a list of delays/,
  ],
  ['a webhook timeout as text', { webhooks: { timeoutMs: '10s' } }, 'webhooks.timeoutMs', /milliseconds/],
  [
    'allowPrivateTargets as "yes"',
    { webhooks: { allowPrivateTargets: 'yes' } },
    'webhooks.allowPrivateTargets',
    /true or false/,
  ],
  [
    'a bounce rate above 1',
    { warmup: { thresholds: { maxBounceRate: 2, maxDeferralRate: 0.1, minProblems: 3 } } },
    'warmup.thresholds.maxBounceRate',
    /from 0 to 1/,
  ],
  ['a job concurrency of 0', { jobs: { concurrency: 0 } }, 'jobs.concurrency', /at least 1/],
  ['retention of 4000 days', { retention: { days: 4000 } }, 'retention.days', /from 0 to 3650/],
  ['a template cache of -1', { templateCache: { maxTemplates: -1 } }, 'templateCache.maxTemplates', /at least 0/],
  ['an empty metrics token', { metrics: { token: '' } }, 'metrics.token', /non-empty/],
  [
    'an alerts sender that is no address',
    { alerts: { from: 'alerts at example.com' } },
    'alerts.from',
    /email address/,
  ],
  ['a transport that is a string', { transport: 'smtp://localhost' }, 'transport', /Transport/],
  ['a sandbox that is not started', { sandbox: true }, 'sandbox', /startSandbox/],
  [
    'a misspelt option',
    { trackingBaseURL: 'https://mail.example.com/t' },
    'trackingBaseURL',
    /one of store, secret, .*trackingBaseUrl/,
  ],
  ['a misspelt nested option', { delivery: { mxport: 2525 } }, 'delivery.mxport', /one of mxPort/],
];

describe('createMailplane options', () => {
  it.each(BAD_OPTIONS)('refuses %s, naming the option and what it accepts', async (_name, options, path, expected) => {
    const error = await refusal(options);
    expect(error?.code).toBe('INVALID_OPTIONS');
    const issue = error?.details.find((found) => found.path === path);
    expect(issue, `${path} in ${error?.message}`).toBeDefined();
    expect(issue!.expected).toMatch(expected);
    expect(error!.message).toContain(`- ${path}: got ${issue!.received}; expected ${issue!.expected}`);
  });

  it('names every bad option in one error, and never prints a secret', async () => {
    const error = await refusal({
      secret: 'hunter2-but-short',
      metrics: { token: 1234 },
      delivery: { mxPort: 0, concurrency: 1.5 },
      retention: { days: -1 },
    });
    expect(error!.details.map((issue) => issue.path).sort()).toEqual(
      ['delivery.concurrency', 'delivery.mxPort', 'metrics.token', 'retention.days', 'secret'].sort(),
    );
    expect(error!.message).toMatch(/^createMailplane: 5 options are not valid:\n/);
    expect(error!.message).toContain('- secret: got a string of 17 characters;');
    expect(error!.message).not.toContain('hunter2');
  });

  it('accepts the documented options, and unset ones take their defaults', async () => {
    expect(
      await refusal({
        trackingBaseUrl: 'https://mail.example.com/t',
        rateLimits: false,
        domains: { dkimSelector: 'S2026', dkimAutoRotateDays: 90 },
        dns: { servers: [{ host: '127.0.0.1', port: 5300 }], rdapBaseUrl: null },
        delivery: { mxPort: 2525, retryDelaysMs: [0, 60_000] },
        webhooks: { allowPrivateTargets: true },
        jobs: { concurrency: 4, lanes: { delivery: 8 }, backoff: { baseMs: 10 } },
        retention: { days: 0 },
        metrics: {},
        templateCache: { maxTemplates: 0 },
        alerts: { from: 'alerts@mail.example.com' },
        transport: () => ({ send: async () => ({ kind: 'sent' }), close: async () => {} }),
      }),
    ).toBeUndefined();
  });
});
