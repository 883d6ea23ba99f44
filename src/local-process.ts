/**
 * This OS process, for claim holders (src/consumer/claims/claim-holder.ts). Beside the entry
 * points because, like them, it reads `process`; nothing else in src does.
 */
import { hostname } from 'node:os';
import type { LocalProcess } from './consumer/claims/claim-holder.ts';

export function localProcess(): LocalProcess {
  return {
    hostname: hostname(),
    pid: process.pid,
    isAlive(pid) {
      try {
        process.kill(pid, 0);
        return true;
      } catch (error) {
        // EPERM: it exists but belongs to someone else.
        return (error as NodeJS.ErrnoException).code === 'EPERM';
      }
    },
  };
}
