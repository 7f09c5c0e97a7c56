/** Driver value -> core value conversions shared by every row mapper. */

type DriverInt = number | bigint | string;

/** An integer column as a JS number (ids, counts, flags). */
export function toNumber(value: DriverInt): number {
  return typeof value === 'number' ? value : Number(value);
}

/** An integer column that may be NULL. */
export function toNumberOrNull(value: DriverInt | null): number | null {
  return value === null ? null : toNumber(value);
}

/** A nanosecond timestamp column as an exact bigint. */
export function toBigint(value: DriverInt): bigint {
  return typeof value === 'bigint' ? value : BigInt(value);
}

/** A 0/1 flag column as a boolean. */
export function toBool(value: DriverInt): boolean {
  return toNumber(value) !== 0;
}

/** A boolean as the 0/1 the flag columns store. */
export function fromBool(value: boolean): number {
  return value ? 1 : 0;
}
