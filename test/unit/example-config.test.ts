/**
 * The example servers' configuration schema, in-process: every bad configuration of the table is
 * refused with a line naming the variable, the value given and what it accepts, all of them at
 * once; the values users wrote that were ignored or misread before are read as meant. The same
 * table runs through the real processes in test/e2e/startup-errors.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../examples/shared/bootstrap.js';
import { CONFIG_VARIABLES, ConfigurationError, type ConfigProblem } from '../../examples/shared/config-schema.js';
import { startupFailureLines } from '../../examples/shared/startup.js';
import { badConfigurations, mergedBadConfiguration } from '../support/bad-configurations.js';

const scratch = mkdtempSync(join(tmpdir(), 'mailplane-config-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const cases = badConfigurations(scratch);

/** The problems readConfig throws for `env`, failing the test when it accepts it. */
function problemsOf(env: NodeJS.ProcessEnv): readonly ConfigProblem[] {
  try {
    readConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as ConfigurationError).problems;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('the example servers refuse a bad configuration', () => {
  it('has a table of at least 20 of them', () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
  });

  it.each(
    cases.map(
      (entry) =>
        [
          `${Object.entries(entry.env)
            .map(([name, value]) => `${name}=${value}`)
            .join(' ')}`,
          entry,
        ] as const,
    ),
  )('%s', (_title, entry) => {
    const problems = problemsOf(entry.env);
    expect(problems.map((problem) => problem.variable)).toEqual([entry.variable]);
    const [line] = startupFailureLines(new ConfigurationError(problems));
    const accepts = problems[0]!.accepts;
    expect(line).toContain(`mailplane: cannot start: ${entry.variable}=`);
    expect(line).toContain(`: ${entry.reason}; accepted: `);
    expect(line).toMatch(new RegExp(`; accepted: ${accepts.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    const value = entry.env[entry.variable]!;
    const display = CONFIG_VARIABLES[entry.variable as keyof typeof CONFIG_VARIABLES].display ?? 'shown';
    if (display === 'shown') expect(line).toContain(`${entry.variable}=${JSON.stringify(value)}`);
    else expect(line).not.toContain(display === 'hidden' ? value : 'hunter2');
  });

  it('names every bad variable at once, one line each', () => {
    const { env, variables } = mergedBadConfiguration(cases);
    expect(variables.length).toBeGreaterThanOrEqual(20);
    const lines = startupFailureLines(new ConfigurationError(problemsOf(env)));
    expect(lines.map((line) => /^mailplane: cannot start: (\w+)=/.exec(line)?.[1])).toEqual(variables);
  });

  it('hides credentials and the database password, showing only their length', () => {
    const problems = problemsOf({
      MAILPLANE_SECRET: 'too-short-secret',
      MAILPLANE_DATABASE_URL: 'mysql://mailplane:hunter2@db/mailplane',
    });
    expect(Object.fromEntries(problems.map((problem) => [problem.variable, problem.shownValue]))).toEqual({
      MAILPLANE_SECRET: '(hidden, 16 characters)',
      MAILPLANE_DATABASE_URL: '"mysql://mailplane:***@db/mailplane"',
    });
    const [unencoded] = problemsOf({ MAILPLANE_DATABASE_URL: 'mysql://mailplane:p@ss/w rd@db/mailplane' });
    expect(unencoded!.shownValue).toBe('"mysql://mailplane:***@db/mailplane"');
  });
});

describe('the example servers read the values users wrote as meant', () => {
  it('reads durations with units in MAILPLANE_RETRY_DELAYS_MS (10m,30m was NaN and the message stayed queued)', () => {
    expect(readConfig({ MAILPLANE_RETRY_DELAYS_MS: '10m,30m' }).mailplane.delivery).toEqual({
      retryDelaysMs: [600_000, 1_800_000],
    });
    expect(readConfig({ MAILPLANE_RETRY_DELAYS_MS: '200, 400' }).mailplane.delivery).toEqual({
      retryDelaysMs: [200, 400],
    });
    expect(readConfig({ MAILPLANE_RETRY_DELAYS_MS: '500ms,10s,1.5h,1d' }).mailplane.delivery).toEqual({
      retryDelaysMs: [500, 10_000, 5_400_000, 86_400_000],
    });
  });

  it('reads every yes/no word in any case (MAILPLANE_RATE_LIMITS=false and MAILPLANE_SANDBOX=yes were ignored)', () => {
    expect(readConfig({ MAILPLANE_RATE_LIMITS: 'false' }).mailplane.rateLimits).toBe(false);
    expect(readConfig({ MAILPLANE_SANDBOX: 'yes', NODE_ENV: 'production' }).sandbox).toBe(true);
    for (const word of ['1', 'true', 'ON', 'Yes'])
      expect(readConfig({ MAILPLANE_METRICS: word, MAILPLANE_WORKERS: word }).metrics).toBe(true);
    for (const word of ['0', 'FALSE', 'off', 'no'])
      expect(readConfig({ MAILPLANE_METRICS: word, MAILPLANE_WORKERS: word }).workers).toBe(false);
  });

  it('reads MAILPLANE_INBOUND_RATE as the inbound listener’s messages a minute per client address', () => {
    expect(readConfig({ MAILPLANE_INBOUND_PORT: '0', MAILPLANE_INBOUND_RATE: '30' }).smtp).toMatchObject({
      inboundPort: 0,
      inboundRate: 30,
    });
    expect(readConfig({}).smtp.inboundRate).toBeUndefined();
  });

  it('reads the traffic shaping timings, and refuses one out of range', () => {
    const env = { MAILPLANE_SHAPING_THROTTLE_WAIT: '10s', MAILPLANE_SHAPING_CACHE: '0' };
    expect(readConfig(env).mailplane.shaping).toEqual({ throttleWaitMs: 10_000, cacheMs: 0 });
    expect(readConfig({ MAILPLANE_SHAPING_CACHE: '2s' }).mailplane.shaping).toEqual({ cacheMs: 2_000 });
    expect(readConfig({}).mailplane.shaping).toBeUndefined();
    expect(() => readConfig({ MAILPLANE_SHAPING_THROTTLE_WAIT: '2h' })).toThrow(/MAILPLANE_SHAPING_THROTTLE_WAIT/);
  });

  it('counts a blank variable as unset, and applies the defaults', () => {
    const config = readConfig({ PORT: '', MAILPLANE_SECRET: ' ', MAILPLANE_RATE_LIMITS: '' });
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: 'sqlite:./data/mailplane.db',
      dataDir: './data',
      secret: undefined,
      workers: true,
      metrics: false,
      logLevel: 'info',
    });
    expect(config.mailplane.rateLimits).toEqual({});
  });
});
