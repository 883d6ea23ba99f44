/**
 * The cases of what arrives: a core document of tens of MiB (streamed, never held whole), and
 * every document type and format the simulator delivers, plus the acknowledgement responses
 * (MLR, eMLR) it sends inbound. Each asks the simulator for the document through the admin
 * API and checks it got what it asked for before importing: a simulator without an option
 * leaves the case, or that kind, not checked, saying so.
 *
 * A business document (an invoice, a credit note, an order) must be imported. A response may
 * be imported, or answered `not_booked` by an importer whose ERP keeps no record of them
 * (importer.ts, NotBookedResult): the consumer acknowledges it all the same. `not_booked` for
 * a business document is a failure: the consumer would tell its sender it was delivered while
 * nothing booked it.
 */

import { createEvidence, type Evidence, notChecked } from '../check-runner/evidence.ts';
import { DOCUMENT_TYPES, formatOfContentType } from '../provider/document-formats.ts';
import { FORMATS } from '../provider/webhooks/routing.ts';
import { expectHeld, expectHolds, heldCount, heldText, type KitCase } from './case.ts';
import { type CallOutcome, describeOutcome, resolvedAs } from './import-call.ts';
import { SimulatorRefusedError } from './simulator.ts';

const CONTRACT = 'src/consumer/importer/README.md';

/** The large core document: tens of MiB, well under API_MAX_DOCUMENT_BYTES (100 MiB). */
export const LARGE_DOCUMENT_BYTES = 32 * 1024 * 1024;

export const importLargeDocument: KitCase = {
  id: 'import.large-document',
  title: `a core document of ${LARGE_DOCUMENT_BYTES / 1024 / 1024} MiB is imported`,
  doc: `${CONTRACT}#the-contract`,
  async run(kit) {
    let messageId: string;
    try {
      messageId = await kit.inbound({ coreDocumentBytes: LARGE_DOCUMENT_BYTES });
    } catch (error) {
      if (!(error instanceof SimulatorRefusedError)) throw error;
      return notChecked(`not checked: ${error.message}`);
    }
    const call = await kit.prepare(messageId, { previouslyAttempted: false });
    const core = call.input.coreDocument;
    const fetched = `message ${messageId}: a core document of ${core.size} bytes (${core.contentType}, sha256 ${core.sha256.slice(0, 12)}...)`;
    if (core.size < LARGE_DOCUMENT_BYTES) {
      await call.discard();
      return notChecked(
        `not checked: the simulator ignores coreDocumentBytes (POST /admin/messages/inbound); it has no large documents yet`,
        [fetched],
      );
    }
    const e = createEvidence();
    e.note(fetched);
    const outcome = await call.run(await kit.instance());
    e.note(describeOutcome(outcome));
    e.expect(
      resolvedAs(outcome, 'imported'),
      "a large document must be imported like any other ('imported'): stream it, never read it whole",
    );
    await expectHolds(kit, e, messageId);
    return e.verdict();
  },
};

interface Kind {
  /** `Invoice/XML`, `ApplicationResponse/XML (MessageLevelResponse)`. */
  label: string;
  messageId: string;
  /** A response message (MLR, eMLR), which an importer may answer `not_booked`. */
  response: boolean;
}

export const importDocumentTypes: KitCase = {
  id: 'import.document-types',
  title:
    "every document type and format the simulator delivers imported once; its responses (MLR, eMLR) imported once or 'not_booked'",
  doc: `${CONTRACT}#the-contract`,
  async run(kit) {
    const e = createEvidence();
    const kinds: Kind[] = [];
    const ignored: string[] = [];
    for (const type of DOCUMENT_TYPES) {
      for (const format of FORMATS) {
        let messageId: string;
        try {
          messageId = await kit.inbound({ document: { type, format } });
        } catch (error) {
          if (!(error instanceof SimulatorRefusedError)) throw error;
          ignored.push(`${type}/${format} (${error.message})`);
          continue;
        }
        const entry = kit.simulator.coreEntry(messageId);
        const got = entry && `${entry.name}/${formatOfContentType(entry.contentType)}`;
        if (got === `${type}/${format}`) kinds.push({ label: got, messageId, response: false });
        else ignored.push(`${type}/${format} (made ${got ?? 'no core document'})`);
      }
    }
    for (const response of ['MLR', 'eMLR'] as const) {
      try {
        const messageId = await kit.simulator.response(response);
        const entry = kit.simulator.coreEntry(messageId);
        const format = entry === undefined ? '?' : formatOfContentType(entry.contentType);
        kinds.push({
          label: `${entry?.name ?? '?'}/${format} (${kit.simulator.action(messageId)})`,
          messageId,
          response: true,
        });
      } catch (error) {
        ignored.push(`${response} (${error instanceof Error ? error.message : String(error)})`);
      }
    }
    if (ignored.length > 0) {
      e.note(`the simulator did not deliver: ${ignored.join('; ')}`);
    }
    if (kinds.length === 0) return notChecked('not checked: no message could be made');
    const importer = await kit.instance();
    for (const kind of kinds) {
      const outcome = await kit.call(importer, kind.messageId, { previouslyAttempted: false });
      const held = await heldCount(kit, kind.messageId);
      e.note(
        `${kind.label}, message ${kind.messageId}: ${describeOutcome(outcome)}${heldText(held)}`,
      );
      expectKindImported(e, kind, outcome, held);
    }
    return e.verdict();
  },
};

/**
 * A business document must resolve `imported` and be held once; a response may instead
 * resolve `not_booked`, and then the target holds nothing of it.
 */
function expectKindImported(
  e: Evidence,
  kind: Kind,
  outcome: CallOutcome,
  held: number | undefined,
): void {
  if (resolvedAs(outcome, 'not_booked')) {
    if (kind.response) {
      expectHeld(e, kind.messageId, held, 0);
      return;
    }
    e.expect(
      false,
      `${kind.label} answered 'not_booked': the consumer would mark it delivered, and its sender would believe it booked while nothing holds it. 'not_booked' is for response messages (MLR, eMLR) only: book it, or throw PermanentImportError so that its sender learns it was refused`,
    );
    return;
  }
  e.expect(
    resolvedAs(outcome, 'imported'),
    kind.response
      ? `${kind.label} must resolve 'imported', or 'not_booked' with a reason if your system keeps no record of responses`
      : `${kind.label} must resolve 'imported'`,
  );
  expectHeld(e, kind.messageId, held);
}
