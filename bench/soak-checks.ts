/**
 * The soak's accounting, against what the provider published and holds:
 * - every event published to the consumer's party is in the inbox, handled (done or skipped);
 *   none missing, none pending, none dead-lettered;
 * - every inbound invoice is acknowledged at the provider (delivered), the importer completed
 *   exactly one import() of it and said where it put it (a location), whatever the importer
 *   is: the journal importer of test/support/journal-importer.ts records its every call;
 * - the consumer's statuses of each invoice equal the provider's.
 * Read from the consumer's SQLite file, the published-events file (one line at a time) and the
 * import journal (its per-message counts are the one map, one entry per invoice).
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import type { ProviderModel } from '../src/provider/model/index.ts';
import type { Dispatcher } from '../src/provider/webhooks/index.ts';
import { importsByMessage, readJournal } from '../test/support/importer-under-test.ts';

export interface SoakAccount {
  eventsPublished: number;
  eventsHandled: number;
  /** Published, never stored. */
  eventsMissing: number;
  /** Stored, not done or skipped (pending, processing or dead). */
  eventsUnhandled: number;
  invoices: number;
  invoicesAcknowledged: number;
  importedOnce: number;
  importedTwice: number;
  notImported: number;
  importErrors: number;
  /** Invoices no import() call gave a location for. */
  locationsMissing: number;
  statusesDiffering: number;
  /** Each a sentence; empty when everything adds up. */
  problems: string[];
}

/**
 * Polls until nothing more will happen: the service has no delivery pending for the party (in
 * flight, or a retry scheduled, as after a 503) and the inbox nothing pending or processing.
 * An event lost on the way does not hold this up; the accounting finds it.
 */
export async function waitForDrain(options: {
  databasePath: string;
  dispatcher: Dispatcher;
  party: string;
  timeoutMs: number;
}): Promise<boolean> {
  const db = new Database(options.databasePath, { readonly: true, timeout: 5_000 });
  try {
    const open = db.prepare<[], { n: number }>(
      "SELECT COUNT(*) AS n FROM events WHERE state IN ('pending', 'processing')",
    );
    const deadline = Date.now() + options.timeoutMs;
    while (Date.now() < deadline) {
      const sending = options.dispatcher.deliveries(options.party, { state: 'pending' }).length;
      if (sending === 0 && (open.get()?.n ?? 1) === 0) return true;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    return false;
  } finally {
    db.close();
  }
}

export async function accountFor(options: {
  databasePath: string;
  publishedFile: string;
  journalFile: string;
  model: ProviderModel;
  party: string;
}): Promise<SoakAccount> {
  const problems: string[] = [];
  const some = (ids: string[]) => `${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', ...' : ''}`;
  const db = new Database(options.databasePath, { readonly: true });
  try {
    // Events.
    const stateOf = db.prepare<[string], { state: string }>(
      'SELECT state FROM events WHERE event_id = ?',
    );
    let eventsPublished = 0;
    let eventsHandled = 0;
    const missing: string[] = [];
    const unhandled: string[] = [];
    const lines = createInterface({ input: createReadStream(options.publishedFile) });
    for await (const eventId of lines) {
      if (eventId === '') continue;
      eventsPublished += 1;
      const state = stateOf.get(eventId)?.state;
      if (state === undefined) missing.push(eventId);
      else if (state === 'done' || state === 'skipped') eventsHandled += 1;
      else unhandled.push(`${eventId} (${state})`);
    }
    if (missing.length > 0) {
      problems.push(`published events never stored: ${missing.length} (${some(missing)})`);
    }
    if (unhandled.length > 0) {
      problems.push(`stored events not handled: ${unhandled.length} (${some(unhandled)})`);
    }

    // Invoices.
    const imports = importsByMessage(readJournal(options.journalFile));
    let importErrors = 0;
    for (const message of imports.values()) importErrors += message.errors;
    const statusesOf = db.prepare<
      [string],
      {
        delivery_status: string | null;
        tax_reporting_status: string | null;
        lifecycle_status: string | null;
      }
    >(
      `SELECT delivery_status, tax_reporting_status, lifecycle_status
         FROM messages WHERE message_id = ? AND transfer = 'inbound'`,
    );
    const invoices = inboundInvoices(options.model, options.party);
    const notAcknowledged: string[] = [];
    const twice: string[] = [];
    const notImported: string[] = [];
    const noLocation: string[] = [];
    const differing: string[] = [];
    let importedOnce = 0;
    for (const message of invoices) {
      const side = message.sides.inbound;
      if (side?.status !== 'delivered') notAcknowledged.push(message.id);
      // Calls that answered: no crash here, so a second one (even `already_imported`) means
      // import() was called twice for one message.
      const journal = imports.get(message.id);
      const count = journal === undefined ? 0 : journal.imported + journal.alreadyImported;
      if (count === 1) importedOnce += 1;
      else if (count === 0) notImported.push(message.id);
      else twice.push(`${message.id} (${count} times)`);
      if (journal === undefined || journal.locations.length === 0) noLocation.push(message.id);
      const row = statusesOf.get(message.id);
      const want = [side?.status, side?.taxReportingStatus, side?.lifecycleStatus];
      const got = [row?.delivery_status, row?.tax_reporting_status, row?.lifecycle_status];
      if (want.some((value, i) => (value ?? null) !== (got[i] ?? null))) {
        differing.push(`${message.id} (provider ${want.join('/')}, consumer ${got.join('/')})`);
      }
    }
    if (notAcknowledged.length > 0) {
      problems.push(
        `invoices not acknowledged: ${notAcknowledged.length} (${some(notAcknowledged)})`,
      );
    }
    if (twice.length > 0)
      problems.push(`invoices imported twice: ${twice.length} (${some(twice)})`);
    if (notImported.length > 0) {
      problems.push(`invoices never imported: ${notImported.length} (${some(notImported)})`);
    }
    if (noLocation.length > 0) {
      problems.push(
        `invoices with no import location recorded: ${noLocation.length} (${some(noLocation)})`,
      );
    }
    if (differing.length > 0) {
      problems.push(
        `invoices whose statuses differ from the provider's: ${differing.length} (${some(differing)})`,
      );
    }
    if (importErrors > 0) problems.push(`import() calls that failed: ${importErrors}`);
    return {
      eventsPublished,
      eventsHandled,
      eventsMissing: missing.length,
      eventsUnhandled: unhandled.length,
      invoices: invoices.length,
      invoicesAcknowledged: invoices.length - notAcknowledged.length,
      importedOnce,
      importedTwice: twice.length,
      notImported: notImported.length,
      importErrors,
      locationsMissing: noLocation.length,
      statusesDiffering: differing.length,
      problems,
    };
  } finally {
    db.close();
  }
}

function inboundInvoices(model: ProviderModel, party: string) {
  return model.messages.all().filter((m) => m.destination.identifier === party);
}
