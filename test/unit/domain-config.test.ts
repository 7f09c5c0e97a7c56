import { describe, expect, it } from 'vitest';
import { defaultDomainRecordsConfig, resolveDomainRecordsConfig } from '../../src/domain/config.js';

describe('resolveDomainRecordsConfig', () => {
  it('fills unset fields with the defaults and lower-cases labels', () => {
    expect(resolveDomainRecordsConfig()).toEqual(defaultDomainRecordsConfig);
    expect(resolveDomainRecordsConfig({ dkimSelector: 'S2026', trackingTarget: 'click.example.net' })).toMatchObject({
      dkimSelector: 's2026',
      trackingTarget: 'click.example.net',
      returnPathLabel: defaultDomainRecordsConfig.returnPathLabel,
    });
  });

  it('refuses labels and hosts that DNS cannot carry', () => {
    expect(() => resolveDomainRecordsConfig({ dkimSelector: 'bad selector' })).toThrow(/dkimSelector/);
    expect(() => resolveDomainRecordsConfig({ returnPathLabel: 'a.b' })).toThrow(/returnPathLabel/);
    expect(() => resolveDomainRecordsConfig({ trackingLabel: '' })).toThrow(/trackingLabel/);
    expect(() => resolveDomainRecordsConfig({ returnPathTarget: 'not a host' })).toThrow(/returnPathTarget/);
    expect(() => resolveDomainRecordsConfig({ trackingTarget: 'localhost' })).toThrow(/trackingTarget/);
    expect(() => resolveDomainRecordsConfig({ spfInclude: 'spf.example.net/x' })).toThrow(/spfInclude/);
  });

  it('defaults DKIM rotation to a 7-day grace and no automatic rotation, and refuses other than whole days', () => {
    expect(resolveDomainRecordsConfig()).toMatchObject({ dkimRotationGraceDays: 7, dkimAutoRotateDays: 0 });
    expect(resolveDomainRecordsConfig({ dkimRotationGraceDays: 2, dkimAutoRotateDays: 90 })).toMatchObject({
      dkimRotationGraceDays: 2,
      dkimAutoRotateDays: 90,
    });
    expect(() => resolveDomainRecordsConfig({ dkimRotationGraceDays: 0 })).toThrow(/dkimRotationGraceDays/);
    expect(() => resolveDomainRecordsConfig({ dkimAutoRotateDays: -1 })).toThrow(/dkimAutoRotateDays/);
    expect(() => resolveDomainRecordsConfig({ dkimAutoRotateDays: Number('x') })).toThrow(/dkimAutoRotateDays/);
  });
});
