/**
 * Signature and credential duties (docs/signature.md): a consumer acts only on requests the
 * service signed with the endpoint's secret, recently, over exactly the bytes received.
 *
 * Each refused request is an inbound deliveryNotified (test: false) for a message id nobody
 * else uses: a consumer that let one through would fetch that message. So a refusal counts
 * only when the answer is not a success and, at the end of the run, no API call names the id.
 */
import { randomUUID } from 'node:crypto';
import type { WebhookEnvelope } from '../protocol/index.ts';
import { buildTestEnvelope } from '../provider/webhooks/test-event.ts';
import { type Duty, decided, type Pending, report } from './duty.ts';
import {
  type Answer,
  describeAnswer,
  describeCall,
  type Harness,
  isSuccess,
  isUnreachable,
  type Sent,
} from './harness.ts';

const DOC = 'docs/signature.md';
const HOUR = 3600;

function probe(h: Harness, test = false): WebhookEnvelope {
  const envelope = buildTestEnvelope({
    party: h.party,
    category: 'inbound',
    action: 'deliveryNotified',
    randomId: randomUUID,
    nowMs: Date.now(),
  });
  return { ...envelope, test };
}

async function refusal(
  h: Harness,
  duty: Duty,
  send: (body: string) => Promise<Sent>,
): Promise<Pending> {
  const envelope = probe(h);
  const sent = await send(JSON.stringify(envelope));
  return {
    async finalize() {
      const answer = await sent.answer;
      const calls = h.calls(envelope.messageId);
      const evidence = [
        describeAnswer(answer),
        calls.length === 0
          ? `API calls about message ${envelope.messageId}: none`
          : `API calls about message ${envelope.messageId}: ${calls.map(describeCall).join('; ')}`,
      ];
      return report(duty, !isSuccess(answer) && calls.length === 0, evidence);
    },
  };
}

/** Nothing else can be judged against a consumer that is not there at all. */
export function assertReachable(h: Harness, answer: Answer | undefined): void {
  if (answer !== undefined && isUnreachable(answer)) {
    throw new Error(
      `could not reach the consumer at ${h.options.url}: ${answer.error ?? 'no answer'}`,
    );
  }
}

/**
 * Every signature and credential probe, sent in turn; the verdicts wait for the end of the run.
 * Throws when the first probe's connection failed at once; `first` is that probe's answer, for
 * the runner to check the same once it has had the time to come (a slow consumer is judged,
 * an unreachable one is not).
 */
export async function signatureDuties(
  h: Harness,
): Promise<{ later: Pending[]; first: Promise<Answer> }> {
  const later: Pending[] = [];
  const t = () => Math.floor(Date.now() / 1000);

  const valid = await h.send(JSON.stringify(probe(h, true)), {
    what: 'test event signed with the secret',
  });
  assertReachable(h, valid.early);
  later.push({
    async finalize() {
      const answer = await valid.answer;
      return report(
        {
          id: 'signature.valid',
          title: 'a correctly signed webhook is accepted',
          doc: `${DOC}#verify-every-request`,
        },
        isSuccess(answer),
        [describeAnswer(answer)],
      );
    },
  });

  later.push(
    await refusal(
      h,
      {
        id: 'signature.tampered',
        title: 'a body changed after signing is refused',
        doc: `${DOC}#verify-every-request`,
      },
      (body) => {
        const signature = h.sign(body);
        const changed = body.replace('"test":false', '"test":false ');
        return h.send(changed, {
          what: 'deliveryNotified whose body changed by one space after signing',
          signature,
          expectAccepted: false,
        });
      },
    ),
    await refusal(
      h,
      {
        id: 'signature.wrong-secret',
        title: 'a signature made with another secret is refused',
        doc: `${DOC}#verify-every-request`,
      },
      (body) =>
        h.send(body, {
          what: 'deliveryNotified signed with another secret',
          signature: h.sign(body, t(), [`${h.options.secret}-not`]),
          expectAccepted: false,
        }),
    ),
    await refusal(
      h,
      {
        id: 'signature.stale',
        title: 'a signature an hour old is refused (replay)',
        doc: `${DOC}#timestamp`,
      },
      (body) =>
        h.send(body, {
          what: 'deliveryNotified signed an hour ago',
          signature: h.sign(body, t() - HOUR),
          expectAccepted: false,
        }),
    ),
    await refusal(
      h,
      {
        id: 'signature.future',
        title: 'a signature an hour in the future is refused',
        doc: `${DOC}#timestamp`,
      },
      (body) =>
        h.send(body, {
          what: 'deliveryNotified signed an hour ahead',
          signature: h.sign(body, t() + HOUR),
          expectAccepted: false,
        }),
    ),
    await refusal(
      h,
      {
        id: 'signature.missing',
        title: 'a request without a signature is refused',
        doc: `${DOC}#verify-every-request`,
      },
      (body) =>
        h.send(body, {
          what: 'deliveryNotified without SVC-Webhook-Signature',
          signature: null,
          expectAccepted: false,
        }),
    ),
  );

  {
    const duty = {
      id: 'signature.rotation',
      title: 'two signatures during a secret rotation are accepted, in either order',
      doc: `${DOC}#secret-rotation`,
    };
    const other = `whsec_rotated_out_${randomUUID()}`;
    const sent: Sent[] = [];
    for (const secrets of [
      [other, h.options.secret],
      [h.options.secret, other],
    ]) {
      const body = JSON.stringify(probe(h, true));
      sent.push(
        await h.send(body, {
          what: `test event with v0 for ${secrets[0] === other ? 'the old, then the current' : 'the current, then the old'} secret`,
          signature: h.sign(body, t(), secrets),
        }),
      );
    }
    later.push({
      async finalize() {
        const answers = await Promise.all(sent.map((s) => s.answer));
        return report(duty, answers.every(isSuccess), answers.map(describeAnswer));
      },
    });
  }

  const credentialDuty = {
    id: 'credential',
    title: 'a request without the configured credential is refused, with it accepted',
    doc: `${DOC}#credential`,
  };
  if (h.options.credential === undefined) {
    later.push(decided(report(credentialDuty, 'not checked', ['no --credential given'])));
  } else {
    const body = JSON.stringify(probe(h, true));
    const withIt = await h.send(body, { what: 'signed test event with the credential' });
    const pending = await refusal(h, credentialDuty, (refused) =>
      h.send(refused, {
        what: 'signed deliveryNotified without the credential',
        credential: false,
        expectAccepted: false,
      }),
    );
    later.push({
      async finalize() {
        const answer = await withIt.answer;
        const without = await pending.finalize();
        return report(credentialDuty, isSuccess(answer) && without.result === 'pass', [
          describeAnswer(answer),
          ...without.evidence,
        ]);
      },
    });
  }

  return { later, first: valid.answer };
}
