/**
 * answer.in-time (docs/consumer-duties.md#answer-within-5-seconds): every webhook the consumer
 * had to accept was answered 200, 201, 202 or 204 within 5 s, the runner's own posts (a burst
 * among them) and the simulator dispatcher's attempts alike.
 */
import { randomUUID } from 'node:crypto';
import { WEBHOOK_RESPONSE_TIMEOUT_MS } from '../protocol/index.ts';
import { buildTestEnvelope } from '../provider/webhooks/test-event.ts';
import { type DutyReport, report } from './duty.ts';
import { type Answer, describeAnswer, type Harness, isSuccess } from './harness.ts';

/** `burst` signed test events at once. */
export function burst(h: Harness): Promise<Answer[]> {
  return Promise.all(
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
}

/** Judged once every post has its answer (h.settled()). */
export function answerDuty(h: Harness, burstAnswers: Answer[]): DutyReport {
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
  const burstMax = Math.max(0, ...burstAnswers.map((a) => a.ms));
  const allMax = Math.max(
    0,
    ...h.accepted.map((a) => a.ms),
    ...deliveries.map(({ a }) => a.responseTimeMs),
  );
  const evidence = [
    `${h.accepted.length} webhooks posted by the runner (${burstAnswers.length} of them at once, slowest ${burstMax} ms) and ${deliveries.length} delivery attempts by the simulator; slowest answer ${allMax} ms`,
    ...(slow.length === 0 && failedAttempts.length === 0
      ? []
      : [
          `not answered 200/201/202/204 within 5 s: ${slow.length} of the runner's posts, ${failedAttempts.length} of the simulator's attempts (up to five of each below)`,
        ]),
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
