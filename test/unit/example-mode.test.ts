import { describe, expect, it } from 'vitest';
import { describeMode, readConfig, sandboxWanted } from '../../examples/shared/bootstrap.js';

describe('the example servers choose sandbox mode', () => {
  it('by default on a development machine, and never once real DNS or delivery is configured or in production', () => {
    const sandbox = (env: NodeJS.ProcessEnv) => readConfig(env).sandbox;
    expect(sandbox({})).toBe(true);
    expect(sandbox({ NODE_ENV: 'development' })).toBe(true);
    expect(sandbox({ NODE_ENV: 'production' })).toBe(false);
    expect(sandbox({ MAILPLANE_DNS_SERVERS: '127.0.0.1:5300' })).toBe(false);
    expect(sandbox({ MAILPLANE_MX_PORT: '2525' })).toBe(false);
    expect(sandbox({ MAILPLANE_SANDBOX: '1', NODE_ENV: 'production', MAILPLANE_MX_PORT: '2525' })).toBe(true);
    expect(sandbox({ MAILPLANE_SANDBOX: '0' })).toBe(false);
    expect(sandbox({ MAILPLANE_SANDBOX: 'on', MAILPLANE_DNS_SERVERS: '127.0.0.1:5300' })).toBe(true);
    expect(sandbox({ MAILPLANE_SANDBOX: 'Off' })).toBe(false);
    expect(
      sandboxWanted(
        { MAILPLANE_SANDBOX: undefined, MAILPLANE_DNS_SERVERS: undefined, MAILPLANE_MX_PORT: undefined },
        'production',
      ),
    ).toBe(false);
  });

  it('says which mode it runs in and what it means', () => {
    const live = describeMode(undefined, readConfig({ MAILPLANE_SANDBOX: '0', MAILPLANE_MX_PORT: '2525' }));
    expect(live).toMatch(/^mailplane: LIVE mode: .*port 2525.*MAILPLANE_SANDBOX=1/);
    const sandbox = {
      dns: { host: '127.0.0.1', port: 5353 },
      smtpPort: 2526,
      keep: 1000,
      attach: () => {},
      close: async () => {},
    };
    expect(describeMode(sandbox, readConfig({}))).toMatch(
      /^mailplane: SANDBOX mode: .*127\.0\.0\.1:5353.*127\.0\.0\.1:2526.*GET \/api\/v1\/account\/sandbox\/message/,
    );
  });

  it('reads the retry schedule from MAILPLANE_RETRY_DELAYS_MS', () => {
    expect(readConfig({ MAILPLANE_RETRY_DELAYS_MS: '200, 400' }).mailplane.delivery).toEqual({
      retryDelaysMs: [200, 400],
    });
    expect(readConfig({}).mailplane.delivery).toBeUndefined();
  });

  it('reads the notification sender from MAILPLANE_ALERTS_FROM', () => {
    expect(readConfig({ MAILPLANE_ALERTS_FROM: ' alerts@mail.example.com ' }).mailplane.alerts).toEqual({
      from: 'alerts@mail.example.com',
    });
    expect(readConfig({}).mailplane.alerts).toBeUndefined();
  });

  it('reads the retention from MAILPLANE_RETENTION_DAYS', () => {
    expect(readConfig({ MAILPLANE_RETENTION_DAYS: '90' }).mailplane.retention).toEqual({ days: 90 });
    expect(readConfig({}).mailplane.retention).toBeUndefined();
  });
});
