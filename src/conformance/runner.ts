/**
 * The conformance runner: starts the simulator, points its webhooks at the consumer under
 * test, plays the scenarios of docs/consumer-duties.md in an order that lets the
 * "nothing happened" checks be judged last, and returns the report.
 *
 *   1. a burst of webhooks at once, and with it the probes: those that must change nothing
 *      (refused signatures, test events, unknown actions) and the valid signatures, rotation
 *      and the credential; every verdict waits for the end of the run, and for its answers;
 *   2. whether the consumer was there at all: if not, the run ends with an error;
 *   3. whole scenarios: import and acknowledge, duplicates of it, status events newest first,
 *      a lost reply to mark-as-delivered, a permanent failure, transient API failures; these
 *      also give the consumer time to act on anything it wrongly accepted earlier;
 *   4. the pending verdicts, then the answer times, once every answer is in;
 *   5. reconciliation last, since it may rightly fetch the messages of 1.
 *
 * A consumer that cannot be reached at all ends the run with an error; one that answers too
 * slowly is judged like any other (answer.in-time fails, with its slow answers as evidence).
 */
import { pino } from 'pino';
import { startProvider } from '../provider/provider.ts';
import { answerDuty, burst } from './answer-duty.ts';
import type { DutyReport, Pending } from './duty.ts';
import { createHarness } from './harness.ts';
import {
  duplicatesDuty,
  importDuty,
  lostAcknowledgementDuty,
  permanentFailureDuty,
  transientFailureDuty,
} from './import-duties.ts';
import type { ConformanceOptions } from './options.ts';
import { orderDuty } from './order-duty.ts';
import { reconcileDuty } from './reconcile-duty.ts';
import { type ConformanceReport, summarize } from './report.ts';
import { assertReachable, signatureDuties } from './signature-duties.ts';
import { skipDuties } from './skip-duties.ts';

/** Ways to reach the consumer other than a shell command, for programs that embed the runner. */
export interface ConformanceHooks {
  /** Runs the consumer's reconciliation once; used instead of `reconcileCommand`. */
  reconcile?: () => Promise<string>;
}

export async function runConformance(
  options: ConformanceOptions,
  hooks: ConformanceHooks = {},
): Promise<ConformanceReport> {
  const startedAt = Date.now();
  const running = await startProvider({
    port: options.port,
    host: options.host,
    apiToken: options.apiToken,
    logger: pino({ level: 'silent' }),
  });
  try {
    const party = running.provider.model.participants.sandbox.identifier;
    const { endpoint } = running.provider.dispatcher.createEndpoint(party, {
      name: 'consumer under test',
      url: options.url,
      secret: options.secret,
      ...(options.credential === undefined ? {} : { credential: options.credential }),
    });
    const h = createHarness(options, running, endpoint.id);
    const duties: DutyReport[] = [];
    const pending: Pending[] = [];

    // The burst goes out with the probes, so a consumer slower than 5 s costs the run one wait.
    const bursting = burst(h);
    const signatures = await signatureDuties(h);
    pending.push(...signatures.later);
    pending.push(...(await skipDuties(h)));
    const burstAnswers = await bursting;
    // By now the first probe has its answer, or its 5 s passed: was the consumer there at all?
    assertReachable(h, await signatures.first);

    const imported = await importDuty(h);
    duties.push(imported.report);
    pending.push(await duplicatesDuty(h, imported.messageId));
    pending.push(await orderDuty(h));
    pending.push(await lostAcknowledgementDuty(h));
    duties.push(await permanentFailureDuty(h));
    duties.push(await transientFailureDuty(h));

    // Anything the consumer wrongly accepted earlier has had the scenarios' time to show.
    for (const verdict of pending) duties.push(await verdict.finalize());
    await h.settled();
    duties.push(answerDuty(h, burstAnswers));
    duties.push(await reconcileDuty(h, hooks.reconcile));
    return summarize(order(duties), {
      consumer: options.url,
      simulator: running.url,
      startedAt,
    });
  } finally {
    await running.close();
  }
}

/** The report lists duties in reading order, whatever order they were judged in. */
const ORDER = [
  'signature.valid',
  'signature.tampered',
  'signature.wrong-secret',
  'signature.stale',
  'signature.future',
  'signature.missing',
  'signature.rotation',
  'credential',
  'answer.in-time',
  'duplicates',
  'status.order',
  'test-events',
  'unknown-actions',
  'import.acknowledge',
  'import.lost-acknowledgement',
  'import.permanent-failure',
  'import.transient-failure',
  'reconciliation',
];

function order(duties: DutyReport[]): DutyReport[] {
  return [...duties].sort((a, b) => ORDER.indexOf(a.id) - ORDER.indexOf(b.id));
}

/** The duty ids, in report order: docs and tests name them. */
export const DUTY_IDS: readonly string[] = ORDER;
