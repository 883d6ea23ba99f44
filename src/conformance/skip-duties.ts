/**
 * Test events and unknown actions (docs/consumer-duties.md#skip-test-events-and-unknown-actions):
 * answered 2xx, never a reason to import.
 */
import { randomUUID } from 'node:crypto';
import { callsLine, isDelivered, isFailed, isFetch } from './calls.ts';
import { type Pending, report } from './duty.ts';
import { describeAnswer, type Harness, isSuccess } from './harness.ts';

const DOC = 'docs/consumer-duties.md';

/**
 * A test event and an event with an unknown action about an inbound message that is waiting
 * to be fetched, and a status event with a property name nobody knows: answered 2xx, and the
 * message is not fetched because of them (judged at the end, before reconciliation).
 */
export async function skipDuties(h: Harness): Promise<Pending[]> {
  const { messageId, events } = await h.hidden(async () => {
    const messageId = await h.inbound();
    return { messageId, events: h.events(messageId).filter((e) => e.transfer === 'inbound') };
  });
  const notified = events.find((e) => e.action === 'deliveryNotified');
  const changed = events.find((e) => e.action === 'messageStatusChanged');
  if (notified === undefined || changed === undefined)
    throw new Error('the simulator sent no deliveryNotified');
  const testEvent = { ...notified, eventId: randomUUID(), test: true };
  const unknown = { ...notified, eventId: randomUUID(), action: 'documentsAmended' };
  const data = changed.data as {
    formerValue: string;
    newValue: string;
    properties?: Record<string, string>;
  };
  const futureProperty = {
    ...changed,
    data: { ...data, properties: { ...data.properties, conformanceFutureProperty: 'ignore me' } },
  };
  const testSent = await h.send(JSON.stringify(testEvent), {
    what: `test event (test: true) deliveryNotified for waiting message ${messageId}`,
  });
  const unknownSent = await h.send(JSON.stringify(unknown), {
    what: `unknown action "documentsAmended" for waiting message ${messageId}`,
  });
  const propertySent = await h.send(JSON.stringify(futureProperty), {
    what: 'messageStatusChanged with an unknown property name',
  });
  const fetched = () =>
    h.calls(messageId).filter((c) => isFetch(c) || isDelivered(c) || isFailed(c));
  return [
    {
      async finalize() {
        const answer = await testSent.answer;
        return report(
          {
            id: 'test-events',
            title: 'a test event causes no import',
            doc: `${DOC}#skip-test-events-and-unknown-actions`,
          },
          isSuccess(answer) && fetched().length === 0,
          [describeAnswer(answer), callsLine(fetched())],
        );
      },
    },
    {
      async finalize() {
        const unknownAnswer = await unknownSent.answer;
        const propertyAnswer = await propertySent.answer;
        return report(
          {
            id: 'unknown-actions',
            title: 'unknown actions and property names are answered 2xx and cause no import',
            doc: `${DOC}#skip-test-events-and-unknown-actions`,
          },
          isSuccess(unknownAnswer) && isSuccess(propertyAnswer) && fetched().length === 0,
          [describeAnswer(unknownAnswer), describeAnswer(propertyAnswer), callsLine(fetched())],
        );
      },
    },
  ];
}
