import { describe, expect, it } from 'vitest';
import {
  formatRoutingEntity,
  parseRoutingEntity,
  parseRoutingMetaData,
  type PoolMembers,
} from '../../src/routing/metadata.js';

const members: PoolMembers = { ipIds: new Set([1, 2]), tpspIds: new Set([7]) };
const json = (value: unknown) => JSON.stringify(value);
const list = (...entities: string[]) => JSON.stringify(entities);
const problems = (strategy: number, raw: string) => {
  const result = parseRoutingMetaData(strategy, raw, members);
  expect(result.ok, raw.slice(0, 80)).toBe(false);
  return result.ok ? [] : result.problems;
};

describe('routing entities', () => {
  it('round-trips IP_<id> and TPSP_<id> and refuses anything else', () => {
    expect(parseRoutingEntity('IP_12')).toEqual({ kind: 'ip', id: 12 });
    expect(parseRoutingEntity('TPSP_3')).toEqual({ kind: 'tpsp', id: 3 });
    expect(formatRoutingEntity({ kind: 'tpsp', id: 3 })).toBe('TPSP_3');
    for (const bad of ['ip_1', 'IP_0', 'IP_01', 'IP_-1', 'IP_1.5', 'IP_', 'IP_99999999999999999', ' IP_1', 'HOST_1']) {
      expect(parseRoutingEntity(bad), bad).toBeNull();
    }
  });
});

describe('parseRoutingMetaData', () => {
  it('strategy 0 takes {} only', () => {
    expect(parseRoutingMetaData(0, '{}', members)).toEqual({ ok: true, value: { strategy: 0 } });
    expect(parseRoutingMetaData(0, ' { } ', members).ok).toBe(true);
    expect(problems(0, json({ IP_1: '1' }))[0]).toMatch(/round robin/);
  });

  it('refuses text that is not JSON or not an object, for every strategy', () => {
    for (const strategy of [0, 1, 2, 3]) {
      for (const raw of ['', 'not json', '{"a":', '[]', '"{}"', 'null', '42']) {
        expect(problems(strategy, raw)[0], `${strategy} ${raw}`).toMatch(/JSON/);
      }
    }
    expect(problems(4, '{}')[0]).toMatch(/strategy/);
  });

  it('strategy 1 maps provider ids 0-11 and others to lists of member entities', () => {
    const result = parseRoutingMetaData(
      1,
      json({ '0': list('IP_1'), '11': list('IP_2', 'TPSP_7'), others: list('TPSP_7') }),
      members,
    );
    expect(result).toEqual({
      ok: true,
      value: {
        strategy: 1,
        providers: new Map([
          [0, [{ kind: 'ip', id: 1 }]],
          [
            11,
            [
              { kind: 'ip', id: 2 },
              { kind: 'tpsp', id: 7 },
            ],
          ],
        ]),
        others: [{ kind: 'tpsp', id: 7 }],
      },
    });
  });

  it('strategy 1 refuses wrong keys, wrong value shapes and entities outside the pool', () => {
    expect(problems(1, '{}')[0]).toMatch(/at least one key/);
    expect(problems(1, json({ '12': list('IP_1') }))[0]).toMatch(/"0" to "11"/);
    expect(problems(1, json({ '01': list('IP_1') }))[0]).toMatch(/"0" to "11"/);
    expect(problems(1, json({ gmail: list('IP_1') }))[0]).toMatch(/"0" to "11"/);
    expect(problems(1, json({ '0': ['IP_1'] }))[0]).toMatch(/string holding a JSON array/);
    expect(problems(1, json({ '0': 'IP_1' }))[0]).toMatch(/not JSON/);
    expect(problems(1, json({ '0': '[]' }))[0]).toMatch(/non-empty/);
    expect(problems(1, json({ '0': '{"IP_1":1}' }))[0]).toMatch(/non-empty JSON array/);
    expect(problems(1, json({ '0': list('IP_3') }))[0]).toMatch(/IP_3 is not in this pool/);
    expect(problems(1, json({ '0': list('TPSP_1') }))[0]).toMatch(/TPSP_1 is not in this pool/);
    expect(problems(1, json({ '0': list('IP_1', 'IP_1') }))[0]).toMatch(/twice/);
    expect(problems(1, json({ '0': json([1]) }))[0]).toMatch(/must be a string/);
  });

  it('strategy 2 maps member entities to whole-number weights, at least one above 0', () => {
    expect(parseRoutingMetaData(2, json({ IP_1: '2', IP_2: '0', TPSP_7: '4' }), members)).toEqual({
      ok: true,
      value: {
        strategy: 2,
        weights: [
          { entity: { kind: 'ip', id: 1 }, weight: 2 },
          { entity: { kind: 'ip', id: 2 }, weight: 0 },
          { entity: { kind: 'tpsp', id: 7 }, weight: 4 },
        ],
      },
    });
    expect(problems(2, json({ IP_1: '0' }))[0]).toMatch(/above 0/);
    for (const weight of [2, '-1', '1.5', '', ' 1', '01', '1e3', '1000001', null]) {
      expect(problems(2, json({ IP_1: weight }))[0], String(weight)).toMatch(/whole number/);
    }
    expect(problems(2, json({ IP_9: '1' }))[0]).toMatch(/not in this pool/);
    expect(problems(2, json({ others: '1' }))[0]).toMatch(/not an entity/);
  });

  it('strategy 3 maps sending domains (case-insensitive) and others to lists of member entities', () => {
    const result = parseRoutingMetaData(3, json({ 'Mail.Example.com': list('IP_1'), others: list('IP_2') }), members);
    expect(result).toEqual({
      ok: true,
      value: {
        strategy: 3,
        domains: new Map([['mail.example.com', [{ kind: 'ip', id: 1 }]]]),
        others: [{ kind: 'ip', id: 2 }],
      },
    });
    expect(problems(3, json({ 'example.com': list('IP_1'), 'EXAMPLE.com': list('IP_2') }))[0]).toMatch(/twice/);
    expect(problems(3, json({ 'not a domain': list('IP_1') }))[0]).toMatch(/domain names/);
    expect(problems(3, json({ localhost: list('IP_1') }))[0]).toMatch(/domain names/);
    expect(problems(3, json({ 'example.com': list('TPSP_8') }))[0]).toMatch(/not in this pool/);
  });

  it('refuses keys like __proto__ without touching prototypes', () => {
    expect(problems(1, '{"__proto__":"[\\"IP_1\\"]"}')[0]).toMatch(/"0" to "11"/);
    expect(problems(2, '{"__proto__":"1"}')[0]).toMatch(/not an entity/);
    expect(({} as Record<string, unknown>).IP_1).toBeUndefined();
  });

  it('refuses 10,000-element arrays, 10,000 keys and over-long text quickly', () => {
    const many = Array.from({ length: 10_000 }, () => 'IP_1');
    expect(problems(1, json({ '0': json(many) }))[0]).toMatch(/longer than|at most/);
    const short = Array.from({ length: 1001 }, () => 'IP_1');
    expect(problems(1, json({ '0': json(short) }))[0]).toMatch(/at most 1000/);
    const keys = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`IP_${i + 1}`, '1']));
    expect(problems(2, json(keys))[0]).toMatch(/longer than|more than/);
    expect(problems(0, ' '.repeat(70_000) + '{}')[0]).toMatch(/longer than/);
  });

  it('lists at most 20 problems, each naming its key', () => {
    const bad = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`IP_${i + 100}`, '1']));
    const found = problems(2, json(bad));
    expect(found).toHaveLength(20);
    expect(found[0]).toMatch(/IP_100/);
  });
});
