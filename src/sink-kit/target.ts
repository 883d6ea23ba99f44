/**
 * A controller of the sink's target (the ERP, the file, the queue the sink writes to), which a
 * forker passes to the kit so it can check what only the target can show: what it holds after
 * the consumer delivered, and what the sink does while the target is down. Every method is
 * optional; a case, or the part of one, that needs a method the controller lacks is reported
 * "not checked", saying which.
 *
 * test/integration/consumer/sinks/sink-contract.test.ts has one for each bundled sink: the
 * journal's file (its outage a refusal in front of it) and the ERP stand-in's status changes
 * (its outage a 503 on POST /status-changes).
 */
import type { StatusNotice } from '../consumer/sink/index.ts';

export interface SinkTarget {
  /**
   * Every notice the target holds, in the order it took them. Without it the kit reads what
   * deliver() resolved for, which shows what the consumer handed over, not what the target kept.
   */
  received?(): Promise<readonly StatusNotice[]> | readonly StatusNotice[];
  /** From now on the target refuses (a 503, a full disk) until recover(). */
  outage?(): Promise<void> | void;
  /** Ends outage(): the target takes notices again. Also called after every case. */
  recover?(): Promise<void> | void;
}
