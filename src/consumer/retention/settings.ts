/** Retention's configuration section (docs/configuration.md#retention; README.md beside it). */
import type { Reader } from '../settings/reader.ts';
import { DEFAULT_RETENTION, MIN_DEDUPE_DAYS, type RetentionPolicy } from './policy.ts';

export interface RetentionSettings {
  /**
   * What the worker's process deletes, and when (src/consumer/retention/README.md); undefined
   * when RETENTION_ENABLED=false. @default DEFAULT_RETENTION (bodies 30 days, events 90,
   * dead events 180, eventIds 200, messages 400)
   */
  retention: RetentionPolicy | undefined;
  /** How often retention runs. @default 3600 */
  retentionIntervalSeconds: number;
}

export function readRetentionSettings(read: Reader): RetentionSettings {
  return {
    retention: readPolicy(read),
    retentionIntervalSeconds: read.integer('RETENTION_INTERVAL_SECONDS', 3600, {
      min: 1,
      max: 7 * 86_400,
    }),
  };
}

/** Each period within its bounds, and in the order the data depends on each other. */
function readPolicy(read: Reader): RetentionPolicy | undefined {
  const enabled = read.boolean('RETENTION_ENABLED', true);
  const days = (name: string, fallback: number, min: number) =>
    read.integer(name, fallback, { min, max: 36_500 });
  const policy: RetentionPolicy = {
    bodyDays: days('RETENTION_BODY_DAYS', DEFAULT_RETENTION.bodyDays, 0),
    eventDays: days('RETENTION_EVENT_DAYS', DEFAULT_RETENTION.eventDays, 1),
    deadDays: days('RETENTION_DEAD_DAYS', DEFAULT_RETENTION.deadDays, 1),
    dedupeDays: days('RETENTION_DEDUPE_DAYS', DEFAULT_RETENTION.dedupeDays, MIN_DEDUPE_DAYS),
    messageDays: days('RETENTION_MESSAGE_DAYS', DEFAULT_RETENTION.messageDays, 1),
  };
  if (policy.bodyDays > policy.eventDays) {
    read.problem(
      `RETENTION_BODY_DAYS must not exceed RETENTION_EVENT_DAYS (${policy.bodyDays} > ${policy.eventDays}): a body goes with its event`,
    );
  }
  if (policy.deadDays < policy.eventDays) {
    read.problem(
      `RETENTION_DEAD_DAYS must be at least RETENTION_EVENT_DAYS (${policy.deadDays} < ${policy.eventDays}): a dead event whose message is still open is kept at least as long as a finished one`,
    );
  }
  if (policy.messageDays < policy.dedupeDays) {
    read.problem(
      `RETENTION_MESSAGE_DAYS must be at least RETENTION_DEDUPE_DAYS (${policy.messageDays} < ${policy.dedupeDays}): a message's import record must outlive every redelivery of its events`,
    );
  }
  return enabled ? policy : undefined;
}
