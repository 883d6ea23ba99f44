/**
 * The status sink: the consumer's second fork point, where the ERP hears of every status
 * change of its messages (docs/status-sink.md). A module exports one as its default export,
 * as an importer module does:
 *
 *   export default defineStatusSink({
 *     settings: z.object({ MY_ERP_STATUS_URL: z.url(), MY_ERP_TOKEN: z.string() }),
 *     secrets: ['MY_ERP_TOKEN'],
 *     describe: (settings) => `status changes go to ${settings.MY_ERP_STATUS_URL}`,
 *     create: ({ settings, logger }) => createMyErpSink(settings, logger),
 *   });
 *
 * SINK_MODULE names it (a name of src/sinks/, or a path); its settings are validated with the
 * consumer's configuration, in one report. What comes out of the sink (the errors deliver()
 * throws, its log lines, `describe`) passes a redaction of its secrets first, as an
 * importer's does (modules/module-redaction.ts).
 */
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { StatusNotice } from '../store/status-notice.ts';

/** What the consumer passes with each notice (a sink may ignore it, at a cost: below). */
export interface DeliveryOptions {
  /**
   * Aborted when the consumer stops waiting for this call: its delivery deadline passed
   * (SINK_DELIVERY_TIMEOUT_MS), or the consumer is shutting down. Pass it on (undici's and
   * fetch's `signal`) so the call ends with it: the consumer counts the notice as not
   * delivered from that moment, whatever the call does after, and hands it out again later.
   */
  signal: AbortSignal;
}

/**
 * What became of one notice of a deliverMany() call: the shape of Promise.allSettled's
 * entries, so a sink may answer with `Promise.allSettled(notices.map(...))`.
 */
export type NoticeOutcome = { status: 'fulfilled' } | { status: 'rejected'; reason: unknown };

export interface StatusSink {
  /**
   * Hands one notice to the ERP; resolves once the ERP has it. Throwing (or rejecting) means
   * not delivered: the consumer tries again later, with backoff, and hands out no later notice
   * of the same message side and kind meanwhile. Must be idempotent on `notice.id`: after a
   * crash between your answer and the consumer's record, the same notice comes again.
   * Called for several notices at once (SINK_CONCURRENCY), each of another stream; a
   * stream's next notice only once this one resolved. `options` is new in 0.3: a sink
   * written before takes `deliver(notice)` and still works, cut at the same deadline.
   */
  deliver(notice: StatusNotice, options?: DeliveryOptions): Promise<void>;
  /**
   * Optional, new in 0.3: hands several notices in one call, each the head of another stream
   * (so in no order among themselves), for a target that takes a batch for the price of one
   * (the journal's one fsync, an ERP's bulk endpoint). When present the consumer calls it
   * instead of deliver(), with every notice it claimed at once (up to SINK_CONCURRENCY).
   * Resolves with one outcome per notice, in the order given: `fulfilled` once the target has
   * that notice, `rejected` (with why) when it does not; each rejected notice comes back later
   * as from deliver(), the fulfilled ones are marked delivered. Throwing, resolving with fewer
   * outcomes, or not resolving within the delivery deadline counts the notices it does not
   * answer as not delivered. The same rules as deliver(): idempotent on each `notice.id`, end
   * the call when `options.signal` aborts.
   */
  deliverMany?(
    notices: readonly StatusNotice[],
    options: DeliveryOptions,
  ): Promise<readonly NoticeOutcome[]>;
  /** Releases what the sink holds (files, connections); called once at shutdown. */
  close?(): Promise<void>;
}

/** What `create` receives: its settings, parsed, and a logger. */
export interface SinkContext<Settings> {
  settings: Settings;
  /** The consumer's logger, with `sink: <name>` on every line. */
  logger: Logger;
}

export interface SinkDefinition<Schema extends z.ZodObject = z.ZodObject> {
  /** @default the module's file name */
  name?: string;
  /** The sink's own environment variables, as an importer's (define-importer.ts). */
  settings: Schema;
  /**
   * The settings whose values are secrets, hidden in what comes out of the sink; names with
   * TOKEN, SECRET, PASSWORD, PASSPHRASE, KEY or CREDENTIAL are secret whether listed or not
   * (define-importer.ts says more).
   * @default []
   */
  secrets?: ReadonlyArray<Extract<keyof z.output<Schema>, string>>;
  /** One line on where status changes go. Never a secret (its secrets are hidden all the same). */
  describe(settings: z.output<Schema>): string;
  /** Builds the sink. Called once per process, after the settings are valid. */
  create(context: SinkContext<z.output<Schema>>): StatusSink | Promise<StatusSink>;
}

/** Types a sink module's default export (an identity function, for inference). */
export function defineStatusSink<Schema extends z.ZodObject>(
  definition: SinkDefinition<Schema>,
): SinkDefinition<Schema> {
  return definition;
}
