/**
 * What the idempotency cases expect of an importer for a message: `imported` the first time,
 * and `already_imported` at the same location whenever it is called again for a message its
 * target holds, by the same process or a new one; never a PermanentImportError then, never a
 * second `imported`.
 */
import type { Evidence } from '../check-runner/evidence.ts';
import { expectHolds, type KitContext } from './case.ts';
import {
  type CallOutcome,
  describeOutcome,
  isPermanent,
  locationOf,
  resolvedAs,
} from './import-call.ts';

/** Imports a new message with a new instance; notes the outcome, expects `imported`. */
export async function importNew(kit: KitContext, e: Evidence, messageId: string, what: string) {
  const outcome = await kit.call(await kit.instance(), messageId, { previouslyAttempted: false });
  e.note(`${what}: ${describeOutcome(outcome)}`);
  e.expect(
    resolvedAs(outcome, 'imported'),
    "a message nobody imported before must resolve { status: 'imported', location }",
  );
  return locationOf(outcome);
}

/**
 * Expects `already_imported` at `location` from a call for a message the target holds;
 * `situation` says when, in what the evidence tells the forker.
 */
export function expectAlreadyImported(
  e: Evidence,
  outcome: CallOutcome,
  location: string | undefined,
  situation: string,
): void {
  if (isPermanent(outcome)) {
    e.expect(
      false,
      `a PermanentImportError ${situation} makes the consumer mark the invoice failed at the service, telling its sender it was refused, while the target holds it`,
    );
  } else if (resolvedAs(outcome, 'imported')) {
    e.expect(
      false,
      `'imported' again ${situation}: the target took the message a second time; the answer is 'already_imported'`,
    );
  } else if (
    e.expect(
      resolvedAs(outcome, 'already_imported'),
      `must resolve 'already_imported' ${situation}`,
    )
  ) {
    if (location !== undefined) {
      e.expect(
        locationOf(outcome) === location,
        `the location differs from the first import's (${location}): the consumer records where the documents are`,
      );
    }
  }
}

/**
 * Calls a new instance (a new process) for a message the target holds, `previouslyAttempted`
 * as given; expects `already_imported` at `location` and the target holding it once.
 */
export async function expectAlreadyImportedAnew(
  kit: KitContext,
  e: Evidence,
  call: { messageId: string; location: string | undefined; previouslyAttempted: boolean },
  situation: string,
): Promise<void> {
  const { messageId, previouslyAttempted } = call;
  const outcome = await kit.call(await kit.instance(), messageId, { previouslyAttempted });
  e.note(
    `a new instance, previouslyAttempted: ${previouslyAttempted}: ${describeOutcome(outcome)}`,
  );
  expectAlreadyImported(e, outcome, call.location, situation);
  await expectHolds(kit, e, messageId);
}
