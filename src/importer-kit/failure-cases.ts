/**
 * The cases of failures that pass: the target down (the consumer retries with backoff), and
 * the call's deadline (its signal aborts at IMPORT_TIMEOUT_MS or when the message's claim is
 * lost). Both must end in an error that is not a PermanentImportError, which the consumer
 * retries; a PermanentImportError would tell the sender their invoice was refused. And the
 * retry must import the message once.
 */

import { createEvidence, type Evidence, notChecked } from '../check-runner/evidence.ts';
import type { Importer } from '../consumer/importer/index.ts';
import { expectHolds, type KitCase, type KitContext, underFault } from './case.ts';
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

/**
 * The retry of a call that failed (`what` names it in the evidence, `after` what it follows):
 * it must import the message, and the target hold it once.
 */
async function expectRetryImports(
  kit: KitContext,
  e: Evidence,
  call: { importer: Importer; messageId: string },
  what: string,
  after: string,
): Promise<void> {
  const outcome = await kit.call(call.importer, call.messageId, { previouslyAttempted: true });
  e.note(`${what} (previouslyAttempted: true): ${describeOutcome(outcome)}`);
  e.expect(
    resolvedAs(outcome, 'imported', 'already_imported'),
    `the retry after ${after} must import the message`,
  );
  await expectHolds(kit, e, call.messageId);
}

export const importTransient: KitCase = {
  id: 'import.transient',
  title:
    'the target down: a retryable error (not PermanentImportError); after it recovers, imported once',
  doc: `${CONTRACT}#what-an-importer-must-do`,
  async run(kit) {
    const target = kit.target;
    if (target?.outage === undefined || target.recover === undefined) {
      return notChecked(
        'not checked: needs a target controller with outage() and recover() (--target <module>, or describeImporterContract({ target }))',
      );
    }
    const e = createEvidence();
    const messageId = await kit.inbound();
    const importer = await kit.instance();
    const down = await underFault(
      kit,
      () => target.outage?.(),
      () => kit.call(importer, messageId, { previouslyAttempted: false }),
    );
    e.note(`message ${messageId}, the target down: ${describeOutcome(down)}`);
    expectTransient(e, down, DOWN);
    await expectRetryImports(
      kit,
      e,
      { importer, messageId },
      'the target back, the retry',
      'the outage',
    );
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
    await expectRetryImports(kit, e, { importer, messageId }, 'the retry', 'the deadline');

    const target = kit.target;
    if (target?.hang === undefined) {
      e.note('against a hanging target: not checked (no target.hang())');
      return e.verdict();
    }
    const hungId = await kit.inbound();
    const hung = await underFault(
      kit,
      () => target.hang?.(),
      () =>
        kit.call(importer, hungId, {
          previouslyAttempted: false,
          signal: AbortSignal.timeout(HANG_ABORT_MS),
          waitMs: HANG_ABORT_MS + PROMPT_MS,
        }),
    );
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
    await expectRetryImports(
      kit,
      e,
      { importer, messageId: hungId },
      'the target back, the retry',
      'the deadline',
    );
    return e.verdict();
  },
};
