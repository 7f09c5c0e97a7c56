import type { DbInt, DbIntNull } from '../schema.js';

/** A floating-point column (the rate's next slot, the adaptive factor). */
export type DbReal = number | string;

/** One source × destination's shaping state (migration 0026). */
export interface ShapingStateTable {
  key: string;
  account_id: DbInt;
  next_slot_at: DbReal;
  factor: DbReal;
  suspended_until: DbIntNull;
  reason: string | null;
  last_reply: string | null;
  last_reply_at: DbIntNull;
  throttled_at: DbIntNull;
  recovered_at: DbIntNull;
  updated_at: DbInt;
}

/** Messages one node has in flight on one key, until its lease ends. */
export interface ShapingFlightsTable {
  key: string;
  holder: string;
  in_flight: DbInt;
  lease_until: DbInt;
}

/** An account's own shaping rules, as JSON. */
export interface ShapingRulesTable {
  account_id: DbInt;
  rules: string;
  updated_at: DbInt;
}

/** Tables of the shaping area. */
export interface ShapingTables {
  shaping_state: ShapingStateTable;
  shaping_flights: ShapingFlightsTable;
  shaping_rules: ShapingRulesTable;
}
