/**
 * Who holds a claim: `<role>:<hostname>:<pid>:<random>`, unique to one run of one process.
 *
 * A process that dies holding claims (SIGKILL, a power cut) leaves them until their lease ends
 * (CLAIM_LEASE_MS). A consumer starting on the same host need not wait for that: a claim whose
 * holder ran on this host under a process id that is no longer alive, or under this very
 * process id in an earlier run (a container restarted as PID 1), cannot be held by anyone, and
 * is released at once. Claims of other hosts, and of live processes here (a reconciliation
 * that cron started), are left to their leases.
 */
import { randomUUID } from 'node:crypto';

/** This OS process, as the entry point describes it (only entry points read `process`). */
export interface LocalProcess {
  hostname: string;
  pid: number;
  /** Whether a process with this id runs on this host now. */
  isAlive(pid: number): boolean;
}

export interface ClaimHolder {
  readonly id: string;
  /** True when `holder` names a run of a process on this host that cannot be running now. */
  isGone(holder: string): boolean;
}

export function createClaimHolder(
  role: string,
  local: LocalProcess,
  randomId: () => string = randomUUID,
): ClaimHolder {
  const id = [role, local.hostname, local.pid, randomId()].join(':');
  return {
    id,
    isGone(holder) {
      const parts = holder.split(':');
      if (parts.length !== 4 || parts[1] !== local.hostname) return false;
      const pid = Number(parts[2]);
      if (!Number.isSafeInteger(pid) || pid <= 0) return false;
      if (pid === local.pid) return holder !== id;
      return !local.isAlive(pid);
    },
  };
}

/** A holder that never recognises another as gone: claims are left to their leases. */
export function createAnonymousHolder(role: string, randomId = randomUUID): ClaimHolder {
  return { id: `${role}:${randomId()}`, isGone: () => false };
}
