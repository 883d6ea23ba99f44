/**
 * What a case is, and what it works with: fresh importer instances (one per simulated
 * process), real inbound messages in the simulator, import() calls with the consumer's inputs,
 * and the target controller when the forker gave one.
 */
import type { Evidence } from '../check-runner/evidence.ts';
import type { KitCase as RunnableCase } from '../check-runner/run-case.ts';
import type { Importer } from '../consumer/importer/index.ts';
import type { CallOptions, CallOutcome, PreparedCall } from './import-call.ts';
import type { InboundRequest, KitSimulator } from './simulator.ts';
import type { ImporterTarget } from './target.ts';

export interface KitContext {
  /** An invoice number the importer's target refuses for good, when the forker gave one. */
  rejectInvoiceNo: string | undefined;
  target: ImporterTarget | undefined;
  simulator: KitSimulator;
  /** A new importer from LoadedImporter.create(): a new one stands for a process restart. */
  instance(): Promise<Importer>;
  /** An inbound invoice in the simulator, ready to fetch; returns its messageId. */
  inbound(request?: InboundRequest): Promise<string>;
  /** The input the consumer builds for import() (documents fetched as the worker fetches them). */
  prepare(messageId: string, options: KitCallOptions): Promise<PreparedCall>;
  /** prepare(), then import() once with it. */
  call(importer: Importer, messageId: string, options: KitCallOptions): Promise<CallOutcome>;
  /** The call timeout: how long an ordinary import() may take. */
  callTimeoutMs: number;
}

/** CallOptions; `waitMs` defaults to the kit's call timeout. */
export type KitCallOptions = Omit<CallOptions, 'waitMs'> & { waitMs?: number };

/** A case of the importer kit: an id, a title, where its rule is written, and what it runs. */
export type KitCase = RunnableCase<KitContext>;

/**
 * Runs `call` with a fault made at the target (`fault`: an outage, a hang, a lost reply) and
 * ends it with target.recover() whatever the call did, so the next call finds the target well.
 */
export async function underFault<T>(
  kit: KitContext,
  fault: () => Promise<void> | void,
  call: () => Promise<T>,
): Promise<T> {
  await fault();
  try {
    return await call();
  } finally {
    await kit.target?.recover?.();
  }
}

/** With target.holds: how many records of the message the target holds; undefined without. */
export async function heldCount(kit: KitContext, messageId: string): Promise<number | undefined> {
  const holds = kit.target?.holds;
  return holds === undefined ? undefined : await holds.call(kit.target, messageId);
}

/** `, held once by the target`, to end a line of evidence; '' when not counted. */
export function heldText(count: number | undefined): string {
  if (count === undefined) return '';
  return `, held ${count === 1 ? 'once' : `${count} times`} by the target`;
}

/** Expects the target to hold the message `expected` times (when counted). */
export function expectHeld(
  e: Evidence,
  messageId: string,
  count: number | undefined,
  expected = 1,
): void {
  if (count === undefined) return;
  e.expect(
    count === expected,
    count > expected
      ? `the target holds message ${messageId} ${count} times: it was imported more than once`
      : `the target holds message ${messageId} ${count} times, not ${expected}`,
  );
}

/** With target.holds: a line saying how many records of the message it holds, expecting `expected`. */
export async function expectHolds(
  kit: KitContext,
  e: Evidence,
  messageId: string,
  expected = 1,
): Promise<void> {
  const count = await heldCount(kit, messageId);
  if (count === undefined) return;
  e.note(`the target holds ${count} record${count === 1 ? '' : 's'} of message ${messageId}`);
  expectHeld(e, messageId, count, expected);
}
