/**
 * fast-check arbitraries of hostile values: strings (astral, lone surrogates, RTL, NUL, control
 * characters, very long), numbers JSON.stringify cannot write (-0, 1e400, beyond 2^53), deep and
 * wide values, malformed JSON text; and the mutations that turn a valid body into a near-valid one.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';

/** JSON text spliced verbatim into a serialised body (numbers and nestings JSON.stringify cannot write). */
export class RawJson {
  constructor(readonly text: string) {}
}

const RAW_TAG = `raw${randomBytes(6).toString('hex')}`;
const RAW_MARK = `\u0000${RAW_TAG}\u0000`;
const RAW_PATTERN = new RegExp(`"\\\\u0000${RAW_TAG}\\\\u0000(\\d+)"`, 'g');

/** JSON.stringify that writes each {@link RawJson} as its text. */
export function toJsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof RawJson) {
      raws.push(v.text);
      return `${RAW_MARK}${raws.length - 1}`;
    }
    return v;
  });
  if (text === undefined) return '';
  // The marker holds a per-process random tag: no generated string carries it.
  return raws.length === 0 ? text : text.replace(RAW_PATTERN, (_m, i: string) => raws[Number(i)]!);
}

const SPECIAL_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\r\n',
  'x\r\nBcc: victim@example.org',
  '\t\u0007\u001b[31m',
  '\u007f\u0085\u009f',
  '\u202eevil\u202c',
  'مرحبا بالعالم',
  '\u200b\u200d\ufeff',
  '\ud800',
  'a\udc00b',
  '\ud83d\ude00😀𝕏',
  '\uffff\ufffe',
  'e\u0301\u0301\u0301',
  'ＡＢＣ１２３',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '9007199254740993',
  '0x1F',
  '__proto__',
  'constructor',
  '{{a}}',
  '{{#each x}}',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '%s%n%x',
  '../../etc/passwd',
  '%00',
  'null',
];

/** Long strings: at and around the limits the schemas use, and far beyond. */
const longString = fc
  .tuple(
    fc.constantFrom(64, 100, 101, 200, 201, 255, 256, 320, 321, 998, 999, 1001, 2049, 10_001, 100_000, 1_100_000),
    fc.constantFrom('a', 'é', '😀', '\u0000', 'a@', '.', '{'),
  )
  .map(([n, unit]) => unit.repeat(Math.ceil(n / unit.length)));

/** Hostile strings, from short oddities to a megabyte. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.emailAddress() },
  { weight: 1, arbitrary: longString },
);

/** Numbers, including the ones JSON.stringify turns into `null` or loses digits of. */
const nastyNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(0, 1, -1, 0.5, 65535, 65536, 2 ** 31, 2 ** 53, -(2 ** 53), Number.MAX_VALUE, Number.MIN_VALUE),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc
    .constantFrom(
      '-0',
      '1e400',
      '-1e400',
      '9007199254740993',
      '123456789012345678901234567890',
      '1e-400',
      '0.0000000000000000000001',
      '1E2',
    )
    .map((t) => new RawJson(t)),
);

/** Values nested `depth` deep, as JSON text (the serialiser would take as long as the server). */
const deepValue = fc
  .tuple(fc.constantFrom(20, 1000, 10_000, 100_000), fc.constantFrom('array', 'object'))
  .map(
    ([depth, kind]) =>
      new RawJson(
        kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth),
      ),
  );

/** Keys of objects: ordinary, hostile, and the prototype's. */
export const nastyKey: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      '',
      ' ',
      'email',
      'name',
      'id',
      'ips',
      'to',
    ),
  },
  { weight: 2, arbitrary: nastyString },
);

/** Any JSON value with hostile leaves, wide arrays and deep nestings. */
export const nastyJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 3, arbitrary: fc.constantFrom(null, true, false) },
    { weight: 4, arbitrary: nastyNumber },
    { weight: 5, arbitrary: nastyString },
    { weight: 1, arbitrary: deepValue },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(1001, 10_001, 100_001)
        .map((n) => new RawJson(`[${Array(n).fill('{"email":"a@example.org"}').join(',')}]`)),
    },
    { weight: 2, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    { weight: 2, arbitrary: fc.dictionary(nastyKey, tie('value'), { maxKeys: 4 }) },
  ),
})).value;

/** JSON text that is not JSON, or JSON that surprises (BOM, trailing garbage, a lone scalar). */
export const malformedJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '{',
    '}',
    '{"a":1,}',
    "{'a':1}",
    '{"a":}',
    'nul',
    'undefined',
    'NaN',
    '[1,2',
    '"unterminated',
    '\u0000',
    '\ufeff{}',
    '{}garbage',
    '{} {}',
    '1',
    '"x"',
    '[]',
    'null',
    'true',
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    '{"a" 1}',
    '\\',
  ),
  fc.constantFrom(1000, 100_000).map((n) => '{"a":'.repeat(n)),
  fc.constantFrom(1000, 100_000).map((n) => '['.repeat(n)),
  fc.string({ unit: 'binary', maxLength: 60 }),
);

/** One edit of a value: set, delete or add a key, wrap in an array, or repeat an array's element. */
export interface Mutation {
  op: 'set' | 'delete' | 'add' | 'wrap' | 'repeat';
  pick: number;
  key: string;
  value: unknown;
  times: number;
}

/** Edits for {@link applyMutations}: mostly replacing a value with a hostile one. */
export const mutation: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom('set', 'set', 'set', 'delete', 'add', 'wrap', 'repeat'),
  pick: fc.nat(),
  key: nastyKey,
  value: nastyJson,
  times: fc.constantFrom(2, 51, 101, 1001, 10_001),
});

type Slot = { parent: Record<string, unknown> | unknown[]; key: string | number };

function slots(value: unknown, out: Slot[] = []): Slot[] {
  if (value instanceof RawJson || typeof value !== 'object' || value === null) return out;
  const container = value as Record<string, unknown> | unknown[];
  for (const key of Object.keys(container)) {
    const k = Array.isArray(container) ? Number(key) : key;
    out.push({ parent: container, key: k });
    slots((container as Record<string, unknown>)[key], out);
  }
  return out;
}

/**
 * A deep copy of a JSON value that keeps each {@link RawJson} and each own `__proto__` key (which
 * `structuredClone` would turn into a plain object and drop). The mutations copy what they insert,
 * so that no two slots share an object: a later edit of one slot then changes only that slot, and
 * the generated values fast-check may replay while shrinking stay as they were made.
 */
function copyJson(value: unknown): unknown {
  if (value instanceof RawJson || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyJson);
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) setOwnKey(copy, key, copyJson(inner));
  return copy;
}

/** Sets `key` as an own property, so that `__proto__` becomes a key that JSON.stringify writes. */
function setOwnKey(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Applies `mutations` to a copy of `value` (a JSON value), each at a slot chosen by its `pick`. */
export function applyMutations(value: unknown, mutations: readonly Mutation[]): unknown {
  const root = { v: copyJson(value) };
  for (const m of mutations) {
    const all = [{ parent: root as Record<string, unknown>, key: 'v' } as Slot, ...slots(root.v)];
    const slot = all[m.pick % all.length]!;
    const parent = slot.parent as Record<string | number, unknown>;
    const current = parent[slot.key];
    if (m.op === 'set') parent[slot.key] = copyJson(m.value);
    else if (m.op === 'delete' && slot.parent !== root) {
      if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
      else delete parent[slot.key];
    } else if (m.op === 'add' && current !== null && typeof current === 'object' && !(current instanceof RawJson)) {
      if (Array.isArray(current)) current.push(copyJson(m.value));
      else setOwnKey(current, m.key, copyJson(m.value));
    } else if (m.op === 'wrap') parent[slot.key] = [current];
    else if (m.op === 'repeat' && Array.isArray(current) && current.length > 0) {
      // Bounded to a few megabytes: a wide value repeated 10,001 times would not fit in a string.
      // Copies, not one object many times: a later edit inside one copy would otherwise grow them all
      // (a 100,000-character string set into an element repeated 1,001 times is a 100 MB body; the
      // fuzzer once built one of 132 MB, which took the test process seconds).
      const times = toJsonText(current[0]).length * m.times > 4_000_000 ? 2 : m.times;
      parent[slot.key] = Array.from({ length: times }, () => copyJson(current[0]));
    }
  }
  return root.v;
}

/** Percent-encodes the UTF-8 bytes of `text` (lone surrogates become U+FFFD), all but unreserved ones. */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Path segments and query text as an attacker writes them: bad escapes, encoded slashes and NULs. */
export const rawSegment: fc.Arbitrary<string> = fc.constantFrom(
  '%',
  '%zz',
  '%ED%A0%80',
  '%C0%80',
  '%FF',
  '%00',
  '%2F',
  '..',
  '%2e%2e',
  '.',
  '%20',
  '+',
  '%E2%80%AE',
  'a%0D%0Ab',
);
