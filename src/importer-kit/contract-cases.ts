/**
 * The cases of the importer's idempotency contract (src/consumer/importer/README.md): a new
 * message imported once; a call whose result was lost, and a message the target holds while
 * the consumer's record of it is gone, both answered `already_imported` at the same location;
 * a refusal for good as a PermanentImportError; eight imports at once; forget() that leaves
 * the system of record alone.
 */

import { createEvidence, notChecked } from '../check-runner/evidence.ts';
import { expectAlreadyImported, expectAlreadyImportedAnew, importNew } from './already-imported.ts';
import { expectHeld, expectHolds, heldCount, heldText, type KitCase, underFault } from './case.ts';
import { describeOutcome, isPermanent, locationOf, resolvedAs } from './import-call.ts';

const CONTRACT = 'src/consumer/importer/README.md';

export const importOnce: KitCase = {
  id: 'import.once',
  title: "a new message is imported: 'imported', with a location",
  doc: `${CONTRACT}#what-an-importer-must-do`,
  async run(kit) {
    const e = createEvidence();
    const messageId = await kit.inbound();
    const holds = kit.target?.holds;
    if (holds !== undefined) {
      const before = await holds.call(kit.target, messageId);
      e.expect(
        before === 0,
        `target.holds() says ${before} before any import: it counts something other than this message's records`,
      );
    }
    await importNew(kit, e, messageId, `message ${messageId}, previouslyAttempted: false`);
    await expectHolds(kit, e, messageId);
    return e.verdict();
  },
};

export const importLostReply: KitCase = {
  id: 'import.lost-reply',
  title:
    "a call whose result was lost is retried by a new process: 'already_imported', same location",
  doc: `${CONTRACT}#what-the-consumer-guarantees`,
  async run(kit) {
    const e = createEvidence();
    const messageId = await kit.inbound();
    const location = await importNew(kit, e, messageId, `message ${messageId}, first call`);
    e.note('its result thrown away, as when the consumer stops before recording the import');
    await expectAlreadyImportedAnew(
      kit,
      e,
      { messageId, location, previouslyAttempted: true },
      'after a lost result (the 409 trap)',
    );

    const target = kit.target;
    if (target?.loseReply === undefined) {
      e.note('a reply lost at the target itself: not checked (no target.loseReply())');
      return e.verdict();
    }
    const lostId = await kit.inbound();
    const lost = await underFault(
      kit,
      () => target.loseReply?.(),
      async () => kit.call(await kit.instance(), lostId, { previouslyAttempted: false }),
    );
    e.note(`message ${lostId}, its reply lost at the target: ${describeOutcome(lost)}`);
    e.expect(
      !isPermanent(lost),
      'a lost reply is not a refusal: a PermanentImportError marks failed an invoice the target took',
    );
    await expectAlreadyImportedAnew(
      kit,
      e,
      { messageId: lostId, location: locationOf(lost), previouslyAttempted: true },
      'after a lost reply (the 409 trap)',
    );
    return e.verdict();
  },
};

export const importDuplicateFromTarget: KitCase = {
  id: 'import.duplicate-from-target',
  title:
    "the target holds a message the consumer has no record of: 'already_imported', same location",
  doc: `${CONTRACT}#what-an-importer-must-do`,
  async run(kit) {
    const e = createEvidence();
    const messageId = await kit.inbound();
    const location = await importNew(kit, e, messageId, `message ${messageId}, first call`);
    e.note(
      "the consumer's record of it lost (a restored backup): a new instance called as for a new message",
    );
    await expectAlreadyImportedAnew(
      kit,
      e,
      { messageId, location, previouslyAttempted: false },
      'for a message the target holds',
    );
    return e.verdict();
  },
};

export const importPermanent: KitCase = {
  id: 'import.permanent',
  title: 'an invoice the target refuses for good throws PermanentImportError with a reason',
  doc: `${CONTRACT}#what-an-importer-must-do`,
  async run(kit) {
    const invoiceNo = kit.rejectInvoiceNo;
    if (invoiceNo === undefined) {
      return notChecked(
        'not checked: give an invoice number the target refuses for good (--reject-invoice-no, or rejectInvoiceNo)',
      );
    }
    const e = createEvidence();
    const messageId = await kit.inbound({ invoice: { invoiceNo } });
    const outcome = await kit.call(await kit.instance(), messageId, {
      previouslyAttempted: false,
    });
    e.note(`message ${messageId}, invoice ${invoiceNo}: ${describeOutcome(outcome)}`);
    if (
      e.expect(
        isPermanent(outcome),
        outcome.ended === 'rejected'
          ? 'a refusal for good must be a PermanentImportError: any other error is retried for ever, and the sender never learns why'
          : 'an invoice the target refuses must throw PermanentImportError, never resolve: the consumer would tell the sender it was delivered',
      ) &&
      outcome.ended === 'rejected'
    ) {
      const reason = (outcome.error as { reason?: unknown }).reason;
      e.expect(
        typeof reason === 'string' && reason.trim() !== '',
        'the reason is empty: it is what the sender reads at the service',
      );
    }
    await expectHolds(kit, e, messageId, 0);
    return e.verdict();
  },
};

/** Messages imported at once by one instance (the worker's concurrency). */
const CONCURRENT = 8;

export const importConcurrent: KitCase = {
  id: 'import.concurrent',
  title: `${CONCURRENT} different messages at once: each 'imported', each at a location of its own`,
  doc: `${CONTRACT}#what-an-importer-must-do`,
  async run(kit) {
    const e = createEvidence();
    const messageIds = await Promise.all(Array.from({ length: CONCURRENT }, () => kit.inbound()));
    const prepared = await Promise.all(
      messageIds.map((id) => kit.prepare(id, { previouslyAttempted: false })),
    );
    const importer = await kit.instance();
    const outcomes = await Promise.all(prepared.map((call) => call.run(importer)));
    const locations = new Map<string, string[]>();
    for (const [i, outcome] of outcomes.entries()) {
      const id = messageIds[i] as string;
      const held = await heldCount(kit, id);
      e.note(`message ${id}: ${describeOutcome(outcome)}${heldText(held)}`);
      e.expect(resolvedAs(outcome, 'imported'), `message ${id} must resolve 'imported'`);
      expectHeld(e, id, held);
      const location = locationOf(outcome);
      if (location !== undefined) locations.set(location, [...(locations.get(location) ?? []), id]);
    }
    for (const [location, ids] of locations) {
      e.expect(
        ids.length === 1,
        `messages ${ids.join(', ')} share the location ${location}: one import overwrote or hid another`,
      );
    }
    return e.verdict();
  },
};

export const importForget: KitCase = {
  id: 'import.forget',
  title:
    "forget() keeps what the system of record needs: a later call still answers 'already_imported'",
  doc: 'src/consumer/importer/importer.ts',
  async run(kit) {
    const first = await kit.instance();
    const forget = first.forget;
    if (typeof forget !== 'function')
      return notChecked('not checked: the importer has no forget()');
    const e = createEvidence();
    const messageId = await kit.inbound();
    const outcome = await kit.call(first, messageId, { previouslyAttempted: false });
    e.note(`message ${messageId}: ${describeOutcome(outcome)}`);
    if (!e.expect(resolvedAs(outcome, 'imported'), "a new message must resolve 'imported'")) {
      return e.verdict();
    }
    const location = locationOf(outcome) ?? null;
    try {
      await forget.call(first, { messageId, transfer: 'inbound', location });
      e.note("forget() resolved (retention deleted the consumer's record of it)");
    } catch (error) {
      // The consumer logs a failed forget() and goes on; what matters is what is left.
      e.note(`forget() threw ${String(error)} (the consumer logs it and goes on)`);
    }
    const again = await kit.call(await kit.instance(), messageId, { previouslyAttempted: false });
    e.note(`an event replayed later, a new instance: ${describeOutcome(again)}`);
    expectAlreadyImported(
      e,
      again,
      location ?? undefined,
      'after forget() (it removed what finds the import again)',
    );
    await expectHolds(kit, e, messageId);
    return e.verdict();
  },
};
