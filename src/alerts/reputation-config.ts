/** The `reputation` option of `createMailplane` and what it resolves to. */
import { DEFAULT_PROTECTION, type ProtectionLine, type ProtectionSettings } from './protection.js';

/** The `reputation` option of `createMailplane` (docs/reputation.md). */
export interface ReputationOptions {
  /** Time between two evaluations (default 60 000: a crossing is seen within two minutes). */
  evaluationIntervalMs?: number;
  /** The automatic protection's defaults for every account: {@link DEFAULT_PROTECTION} with these changes. */
  protection?: { enabled?: boolean; hardBounceRate?: ProtectionLine; spamComplaintRate?: ProtectionLine };
}

/** The resolved `reputation` option. */
export interface ReputationConfig {
  evaluationIntervalMs: number;
  protection: ProtectionSettings;
}

/** Fills the unset fields of the `reputation` option (already checked by src/options.ts). */
export function resolveReputationConfig(options: ReputationOptions = {}): ReputationConfig {
  return {
    evaluationIntervalMs: options.evaluationIntervalMs ?? 60_000,
    protection: { ...DEFAULT_PROTECTION, ...options.protection },
  };
}
