/**
 * The cases of failures that pass: the target down (the consumer retries with backoff), and
 * the call's deadline (its signal aborts at IMPORT_TIMEOUT_MS or when the message's claim is
 * lost). Both must end in an error that is not a PermanentImportError, which the consumer
 * retries; a PermanentImportError would tell the sender their invoice was refused. And the
 * retry must import the message once.
 */
import { createEvidence, type Evidence, expectHolds, type KitCase, notChecked } from './case.ts';
import {
  type CallOutcome,
  describeOutcome,
  isPermanent,
  isTransient,
  resolvedAs,
} from './import-call.ts';

const CONTRACT = 'src/consumer/importer/README.md';

/** "Within a couple of seconds" of its signal aborting, import() has returned. */
export const PROMPT_MS = 2_000;
/** How long into the call the signal aborts against a hanging target. */
export const HANG_ABORT_MS = 200;

/** What each wrong ending of a call that must fail means, in the situation of the case. */
interface Wrong {
  when: string;
  running: string;
  resolved: string;
}

function expectTransient(e: Evidence, outcome: CallOutcome, wrong: Wrong): void {
  if (outcome.ended === 'running') e.expect(false, wrong.running);
  else if (isPermanent(outcome)) {
    e.expect(
      false,
      `a PermanentImportError ${wrong.when} makes the consumer mark the invoice failed at the service, though a retry would import it`,
    );
  } else e.expect(isTransient(outcome), wrong.resolved);
}

const DOWN: Wrong = {
  when: 'while the target is down',
  running: 'import() did not return while the target is down',
  resolved:
    'import() resolved while the target is down: it cannot have taken the documents there; it must throw, so that the consumer retries',
};

const ABORTED: Wrong = {
  when: 'at the deadline',
  running: `import() had not returned ${PROMPT_MS} ms after its signal aborted: pass the signal to your calls and stop when it fires`,
  resolved:
    'import() went on with its signal aborted: at the deadline, or when the consumer lost the claim, it must stop and throw',
};

export const importTransient: KitCase = {
  id: 'import.transient',
  title:
    'the target down: a retryable error (not PermanentImportError); after it recovers, imported once',
  doc: `${CONTRACT}#what-an-importer-must-do`,
  async run(kit) {
    const target = kit.target;
    if (target?.outage === undefined || target.recover === undefined) {
      return notChecked(
        'not checked: needs a target controller with outage() and recover() (describeImporterContract({ target }))',
      );
    }
    const e = createEvidence();
    const messageId = await kit.inbound();
    const importer = await kit.instance();
    await target.outage();
    let down: CallOutcome;
    try {
      down = await kit.call(importer, messageId, { previouslyAttempted: false });
    } finally {
      await target.recover();
    }
    e.note(`message ${messageId}, the target down: ${describeOutcome(down)}`);
    expectTransient(e, down, DOWN);
    const retry = await kit.call(importer, messageId, { previouslyAttempted: true });
    e.note(`the target back, the retry (previouslyAttempted: true): ${describeOutcome(retry)}`);
    e.expect(
      resolvedAs(retry, 'imported', 'already_imported'),
      'the retry after the outage must import the message',
    );
    await expectHolds(kit, e, messageId);
    return e.verdict();
  },
};

export const importDeadline: KitCase = {
  id: 'import.deadline',
  title: `an aborted signal ends import() within ${PROMPT_MS / 1000} s with a retryable error; the retry imports once`,
  doc: `${CONTRACT}#what-the-consumer-guarantees`,
  async run(kit) {
    const e = createEvidence();
    const messageId = await kit.inbound();
    const importer = await kit.instance();
    const aborted = await kit.call(importer, messageId, {
      previouslyAttempted: false,
      signal: AbortSignal.abort(new DOMException('the import deadline passed', 'TimeoutError')),
      waitMs: PROMPT_MS,
    });
    e.note(`message ${messageId}, its signal aborted before the call: ${describeOutcome(aborted)}`);
    expectTransient(e, aborted, ABORTED);
    const retry = await kit.call(importer, messageId, { previouslyAttempted: true });
    e.note(`the retry (previouslyAttempted: true): ${describeOutcome(retry)}`);
    e.expect(
      resolvedAs(retry, 'imported', 'already_imported'),
      'the retry after the deadline must import the message',
    );
    await expectHolds(kit, e, messageId);

    const target = kit.target;
    if (target?.hang === undefined) {
      e.note('against a hanging target: not checked (no target.hang())');
      return e.verdict();
    }
    const hungId = await kit.inbound();
    await target.hang();
    let hung: CallOutcome;
    try {
      hung = await kit.call(importer, hungId, {
        previouslyAttempted: false,
        signal: AbortSignal.timeout(HANG_ABORT_MS),
        waitMs: HANG_ABORT_MS + PROMPT_MS,
      });
    } finally {
      await target.recover?.();
    }
    e.note(
      `message ${hungId}, the target hanging, the signal aborting ${HANG_ABORT_MS} ms in: ${describeOutcome(hung)}`,
    );
    if (hung.ended === 'resolved' && hung.ms < HANG_ABORT_MS) {
      e.expect(
        false,
        'import() resolved although the target hangs: target.hang() did not reach it',
      );
    } else {
      expectTransient(e, hung, ABORTED);
    }
    const after = await kit.call(importer, hungId, { previouslyAttempted: true });
    e.note(`the target back, the retry (previouslyAttempted: true): ${describeOutcome(after)}`);
    e.expect(
      resolvedAs(after, 'imported', 'already_imported'),
      'the retry after the deadline must import the message',
    );
    await expectHolds(kit, e, hungId);
    return e.verdict();
  },
};
