/** The reconciliation scheduler's configuration section (`npm run reconcile-schedule`). */
import { Cron } from 'croner';
import { type Env, loadSection, type Reader } from '../settings/reader.ts';

export interface ReconcileScheduleConfig {
  /**
   * When reconciliation runs: a cron pattern of 5 fields (minute hour day month weekday), or 6
   * with seconds first, in the process's time zone (UTC in the image unless TZ is set).
   * @default '17 3 * * *' (daily at 03:17)
   */
  reconcileSchedule: string;
}

function readReconcileSchedule(read: Reader): ReconcileScheduleConfig {
  return {
    reconcileSchedule: read.string('RECONCILE_SCHEDULE', '17 3 * * *', (v) => {
      try {
        new Cron(v, { paused: true }).stop();
        return /^\S+(\s+\S+){4,5}$/.test(v)
          ? undefined
          : 'must be a cron pattern of 5 fields (or 6 with seconds first)';
      } catch (error) {
        return `is not a cron pattern: ${(error as Error).message}`;
      }
    }),
  };
}

/** Settings of the reconciliation scheduler (`reconcile-schedule`), RECONCILE_SCHEDULE. */
export function loadReconcileScheduleConfig(env: Env): Readonly<ReconcileScheduleConfig> {
  return loadSection(env, readReconcileSchedule);
}
