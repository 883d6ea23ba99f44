/**
 * The conformance runner: starts the simulator, points its webhooks at the consumer under
 * test, plays the scenarios of docs/consumer-duties.md in an order that lets the
 * "nothing happened" checks be judged last, and returns the report.
 *
 *   1. probes that must change nothing: refused signatures, test events, unknown actions
 *      (their verdicts wait for the end of the run);
 *   2. what must be accepted: valid signatures, rotation, the credential, a burst;
 *   3. whole scenarios: import and acknowledge, duplicates of it, a permanent failure,
 *      transient API failures, status events newest first; these also give the consumer
 *      time to act on anything it wrongly accepted in 1;
 *   4. the pending verdicts of 1 and of the duplicates;
 *   5. reconciliation last, since it may rightly fetch the messages of 1.
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { WEBHOOK_RESPONSE_TIMEOUT_MS } from '../protocol/index.ts';
import { startProvider } from '../provider/provider.ts';
import { buildTestEnvelope } from '../provider/webhooks/test-event.ts';
import { type DutyReport, report } from './duty.ts';
import {
  duplicatesDuty,
  importDuty,
  orderDuty,
  permanentFailureDuty,
  reconcileDuty,
  skipDuties,
  transientFailureDuty,
} from './flow-duties.ts';
import { createHarness, describeAnswer, type Harness, isSuccess } from './harness.ts';
import type { ConformanceOptions } from './options.ts';
import { type ConformanceReport, summarize } from './report.ts';
import { signatureDuties } from './signature-duties.ts';

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

    const signatures = await signatureDuties(h);
    const skipped = await skipDuties(h);
    duties.push(...signatures.now);
    const burst = await burstCheck(h);

    const imported = await importDuty(h);
    duties.push(imported.report);
    const duplicates = await duplicatesDuty(h, imported.messageId);
    duties.push(await permanentFailureDuty(h));
    duties.push(await transientFailureDuty(h));
    duties.push(await orderDuty(h));

    // Anything the consumer wrongly accepted earlier has had the scenarios' time to show.
    duties.push(...signatures.later.map((p) => p.finalize()));
    duties.push(...skipped.map((p) => p.finalize()));
    duties.push(duplicates.finalize());
    duties.push(answerDuty(h, burst));
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

/** `burst` signed test events at once. */
async function burstCheck(h: Harness) {
  const answers = await Promise.all(
    Array.from({ length: h.options.burst }, () => {
      const envelope = buildTestEnvelope({
        party: h.party,
        category: 'inbound',
        action: 'created',
        randomId: randomUUID,
        nowMs: Date.now(),
      });
      return h.post(JSON.stringify(envelope), { what: 'burst test event' });
    }),
  );
  return answers;
}

/**
 * Every webhook the consumer had to accept, the runner's own posts and the dispatcher's
 * attempts alike, was answered 200/201/202/204 within 5 seconds.
 */
function answerDuty(h: Harness, burst: Awaited<ReturnType<typeof burstCheck>>): DutyReport {
  const duty = {
    id: 'answer.in-time',
    title: 'every webhook is answered 200, 201, 202 or 204 within 5 s, also under a burst',
    doc: 'docs/consumer-duties.md#answer-within-5-seconds',
  };
  const deliveries = h.provider.provider.dispatcher
    .deliveries(h.party)
    .filter((d) => d.endpointId === h.endpointId)
    .flatMap((d) => d.attempts.map((a) => ({ d, a })));
  const slow = h.accepted.filter((a) => !isSuccess(a) || a.ms >= WEBHOOK_RESPONSE_TIMEOUT_MS);
  const failedAttempts = deliveries.filter(
    ({ a }) =>
      a.statusCode === undefined ||
      ![200, 201, 202, 204].includes(a.statusCode) ||
      a.responseTimeMs >= WEBHOOK_RESPONSE_TIMEOUT_MS,
  );
  const burstMax = Math.max(0, ...burst.map((a) => a.ms));
  const allMax = Math.max(
    0,
    ...h.accepted.map((a) => a.ms),
    ...deliveries.map(({ a }) => a.responseTimeMs),
  );
  const evidence = [
    `${h.accepted.length} webhooks posted by the runner (${burst.length} of them at once, slowest ${burstMax} ms) and ${deliveries.length} delivery attempts by the simulator; slowest answer ${allMax} ms`,
    ...slow.slice(0, 5).map(describeAnswer),
    ...failedAttempts
      .slice(0, 5)
      .map(
        ({ d, a }) =>
          `${d.action} ${d.eventId} -> ${a.statusCode ?? a.error} in ${a.responseTimeMs} ms`,
      ),
  ];
  return report(duty, slow.length === 0 && failedAttempts.length === 0, evidence);
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
  'import.permanent-failure',
  'import.transient-failure',
  'reconciliation',
];

function order(duties: DutyReport[]): DutyReport[] {
  return [...duties].sort((a, b) => ORDER.indexOf(a.id) - ORDER.indexOf(b.id));
}

/** The duty ids, in report order: docs and tests name them. */
export const DUTY_IDS: readonly string[] = ORDER;
