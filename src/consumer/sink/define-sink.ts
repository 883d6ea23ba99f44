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
