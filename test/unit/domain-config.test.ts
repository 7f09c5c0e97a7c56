import { createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultDomainRecordsConfig, resolveDomainRecordsConfig } from '../../src/domain/config.js';
import { generateDkimKeyPair } from '../../src/domain/dkim-keys.js';

describe('resolveDomainRecordsConfig', () => {
  it('fills unset fields with the defaults and lower-cases labels', () => {
    expect(resolveDomainRecordsConfig()).toEqual(defaultDomainRecordsConfig);
    expect(resolveDomainRecordsConfig({ dkimSelector: 'S2026', trackingTarget: 'click.example.net' })).toMatchObject({
      dkimSelector: 's2026',
      trackingTarget: 'click.example.net',
      returnPathLabel: defaultDomainRecordsConfig.returnPathLabel,
    });
  });

  // Labels and hosts DNS cannot carry are refused with the other options: test/unit/mailplane-options.test.ts.

  it('defaults DKIM rotation to a 7-day grace and no automatic rotation', () => {
    expect(resolveDomainRecordsConfig()).toMatchObject({ dkimRotationGraceDays: 7, dkimAutoRotateDays: 0 });
    expect(resolveDomainRecordsConfig({ dkimRotationGraceDays: 2, dkimAutoRotateDays: 90 })).toMatchObject({
      dkimRotationGraceDays: 2,
      dkimAutoRotateDays: 90,
    });
  });

  it('generates DKIM keys of 2048 bits by default, and of the size set', async () => {
    expect(resolveDomainRecordsConfig().dkimKeyBits).toBe(2048);
    expect(resolveDomainRecordsConfig({ dkimKeyBits: 1024 }).dkimKeyBits).toBe(1024);
    for (const bits of [1024, 2048] as const) {
      const { publicKey } = await generateDkimKeyPair(bits);
      const key = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' });
      expect(key.asymmetricKeyDetails?.modulusLength).toBe(bits);
    }
  });
});
