import { describe, expect, it } from 'vitest';
import { manualClock } from 'mailplane';
import { isLoopbackAddress } from '../../src/smtp/connection-guard.js';
import { clientKey, LoginThrottle } from '../../src/smtp/login-throttle.js';

describe('LoginThrottle', () => {
  it('answers the free failures at once, then doubles the delay up to the cap, and locks the address out', () => {
    const throttle = new LoginThrottle({}, manualClock(0));
    const delays = Array.from({ length: 10 }, (_, i) => throttle.failure('192.0.2.1', `user${i}`));
    expect(delays.map((d) => d.delayMs)).toEqual([0, 0, 0, 1_000, 2_000, 4_000, 8_000, 8_000, 8_000, 8_000]);
    expect(delays.map((d) => d.lockedOut)).toEqual([...Array(9).fill(false), true]);
    expect(throttle.lockedFor('192.0.2.1')).toBe(15 * 60_000);
    expect(throttle.lockedFor('192.0.2.2')).toBe(0);
  });

  it('slows a username whatever the address, and a success clears the username only', () => {
    const clock = manualClock(0);
    const throttle = new LoginThrottle({ freeFailures: 1 }, clock);
    expect(throttle.failure('192.0.2.1', 'Smtp_A').delayMs).toBe(0);
    expect(throttle.failure('192.0.2.2', 'smtp_a').delayMs).toBe(1_000);
    throttle.success('smtp_a');
    expect(throttle.failure('192.0.2.3', 'smtp_a').delayMs).toBe(0);
    // The address keeps its count: a valid login of one's own does not wipe it.
    expect(throttle.failure('192.0.2.2', 'smtp_b').delayMs).toBe(1_000);
  });

  it('forgets failures when the window ends, and a lockout when it has run', () => {
    const clock = manualClock(0);
    const throttle = new LoginThrottle({ lockoutFailures: 2, windowMs: 60_000, lockoutMs: 120_000 }, clock);
    throttle.failure('192.0.2.1', 'a');
    expect(throttle.failure('192.0.2.1', 'a').lockedOut).toBe(true);
    clock.advance(60_000);
    expect(throttle.lockedFor('192.0.2.1')).toBe(60_000);
    clock.advance(60_000);
    expect(throttle.lockedFor('192.0.2.1')).toBe(0);
    expect(throttle.failure('192.0.2.1', 'a')).toEqual({ delayMs: 0, lockedOut: false });
  });

  it('holds at most maxEntries per table whatever an attacker sends, the oldest going first', () => {
    const throttle = new LoginThrottle({ maxEntries: 100 }, manualClock(0));
    for (let i = 0; i < 10_000; i++) throttle.failure(`10.0.${i >> 8}.${i & 255}`, `user-${i}-${'x'.repeat(1_000)}`);
    expect(throttle.size).toBe(200);
    // The first addresses are gone, the last are still counted.
    expect(throttle.failure('10.0.0.0', 'u').delayMs).toBe(0);
    for (let i = 0; i < 3; i++) throttle.failure('10.0.39.15', 'u');
    expect(throttle.failure('10.0.39.15', 'v').delayMs).toBeGreaterThan(0);
  });
});

describe('clientKey', () => {
  it('counts IPv4 addresses one by one, IPv6 by /64, and mapped IPv4 as IPv4', () => {
    expect(clientKey('192.0.2.7')).toBe('192.0.2.7');
    expect(clientKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientKey('2001:db8:0:1::5')).toBe('2001:db8:0:1::/64');
    expect(clientKey('2001:0DB8:0000:0001:ffff:1:2:3')).toBe('2001:db8:0:1::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
  });
});

describe('isLoopbackAddress', () => {
  it('is 127.0.0.0/8, ::1 and their mapped forms only', () => {
    expect(['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1'].map(isLoopbackAddress)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['192.0.2.2', '10.0.0.1', '::', '0.0.0.0', 'fd00::2', 'localhost'].map(isLoopbackAddress)).toEqual(
      Array(6).fill(false),
    );
  });
});
