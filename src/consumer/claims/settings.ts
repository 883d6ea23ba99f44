/** The message claims' configuration section (docs/configuration.md#worker). */
import type { Reader } from '../settings/reader.ts';

export interface ClaimSettings {
  /**
   * Lease of a message claim, renewed every third of it while the message is handled: how
   * long a crashed process's messages wait before another takes them over. @default 30000
   */
  claimLeaseMs: number;
}

export function readClaimSettings(read: Reader): ClaimSettings {
  return { claimLeaseMs: read.integer('CLAIM_LEASE_MS', 30_000, { min: 300 }) };
}
