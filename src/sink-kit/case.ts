/**
 * What a sink kit case works with, and the steps the cases share: fresh sink instances (one
 * per simulated process), a sandbox running the consumer with one of them, the status history
 * played into it, and what the target holds afterwards.
 */
import type { Logger } from 'pino';
import type { CaseVerdict, Evidence } from '../check-runner/evidence.ts';
import { pollUntil } from '../check-runner/poll-until.ts';
import type { KitCase as RunnableCase } from '../check-runner/run-case.ts';
import type { StatusNotice, StatusSink } from '../consumer/sink/index.ts';
import { makeHistory, shuffled, statusHistory } from './history.ts';
import { type KitSandbox, startKitSandbox } from './sandbox.ts';
import { expectComplete, expectOnceInOrder } from './streams.ts';
import type { SinkTarget } from './target.ts';

export interface SinkKitContext {
  target: SinkTarget | undefined;
  /** The consumer's logger in the sandbox. */
  logger: Logger;
  /** A new sink instance, as a new process creates it. */
  instance(): Promise<StatusSink>;
  /** What the target holds (target.received), or else what deliver() resolved for. */
  received(): Promise<readonly StatusNotice[]>;
  /** Where received() reads, for the evidence: `the target`, or what the sink accepted. */
  holder: string;
}

/** A case of the sink kit: an id, a title, where its rule is written, and what it runs. */
export type SinkKitCase = RunnableCase<SinkKitContext>;

/** How long the consumer may take to hand the played history to a sink that takes it. */
export const DRAIN_MS = 20_000;
/** How long a target that is down may take to refuse the consumer's first notice. */
export const REFUSE_MS = 10_000;

/**
 * Runs `work` with a sandbox whose consumer delivers to `sink`; recovers the target and stops
 * the sandbox whatever happens.
 */
export async function inSandbox<T>(
  kit: SinkKitContext,
  sink: StatusSink,
  work: (sandbox: KitSandbox) => Promise<T>,
): Promise<T> {
  const sandbox = await startKitSandbox({ sink, logger: kit.logger });
  try {
    return await work(sandbox);
  } finally {
    // A case that took the target down may have broken off before it recovered.
    await kit.target?.recover?.();
    await sandbox.stop();
  }
}

/**
 * `count` invoices' status events posted to the consumer shuffled by `seed` (a third of them
 * twice), each answered 204, and handled by its worker; returns the invoices' message ids.
 */
export async function playHistory(
  sandbox: KitSandbox,
  e: Evidence,
  count: number,
  seed: number,
): Promise<string[]> {
  const ids = await makeHistory(sandbox, count);
  const history = statusHistory(sandbox, ids);
  const events = shuffled(history, seed);
  const refused: string[] = [];
  for (const event of events) {
    const status = await sandbox.post(event);
    if (status !== 204) refused.push(`${event.action} ${event.eventId}: ${status}`);
  }
  await sandbox.drainWorker();
  e.note(
    `${count} invoices delivered, tax reported and paid at the simulator (${ids.join(', ')}); their ${history.length} status events posted to the consumer shuffled (seed ${seed}), ${events.length - history.length} of them twice`,
  );
  e.expect(refused.length === 0, `the consumer did not take every event: ${refused.join('; ')}`);
  return ids;
}

/** Waits until the consumer's outbox is empty: every notice delivered. */
export async function expectDrained(sandbox: KitSandbox, e: Evidence): Promise<boolean> {
  const started = Date.now();
  const drained = await pollUntil(async () => (await sandbox.outbox()).pending === 0, DRAIN_MS);
  if (drained === true) {
    e.note(`the consumer's outbox drained in ${Date.now() - started} ms`);
    return true;
  }
  const { pending } = await sandbox.outbox();
  const error = await sandbox.lastSinkError();
  return e.expect(
    false,
    `${pending} notices still wait in the consumer's outbox after ${DRAIN_MS / 1000} s: the sink did not take them${error === undefined ? '' : ` (its last error: ${error})`}`,
  );
}

/** Waits until the sink refused a notice: the target's outage reached it. */
export async function expectRefusal(sandbox: KitSandbox, e: Evidence): Promise<boolean> {
  const refused = await pollUntil(async () => (await sandbox.outbox()).failing > 0, REFUSE_MS);
  if (refused !== true) {
    return e.expect(
      false,
      `the sink took every notice for ${REFUSE_MS / 1000} s while the target was down: deliver() must throw when the target did not take the notice`,
    );
  }
  e.note(`the target down: the sink refused, its error: ${await sandbox.lastSinkError()}`);
  return true;
}

/** What the target holds of the invoices `ids`: each change once, in order, to the end. */
export async function expectHeldOnce(
  kit: SinkKitContext,
  e: Evidence,
  ids: readonly string[],
): Promise<void> {
  const taken = (await kit.received()).filter(
    (n) => n.messageId !== null && ids.includes(n.messageId),
  );
  e.note(`${kit.holder} holds ${taken.length} notices of these invoices`);
  const byStream = expectOnceInOrder(e, taken, kit.holder);
  expectComplete(e, byStream, ids, kit.holder);
}

/** The end of a case: the outbox drains, and the target holds every change of `ids`. */
export async function expectDelivered(
  kit: SinkKitContext,
  sandbox: KitSandbox,
  e: Evidence,
  ids: readonly string[],
): Promise<CaseVerdict> {
  if (await expectDrained(sandbox, e)) await expectHeldOnce(kit, e, ids);
  return e.verdict();
}
