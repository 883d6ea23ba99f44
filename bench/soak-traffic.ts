/**
 * The soak's steady traffic, once a second, through the embedded provider as a user's would
 * come: `rate` inbound invoices from the demo supplier (the consumer imports and acknowledges
 * each), `rate` business actions on recent invoices (tax reports, payments, rejections: status
 * events), and `rate / 2` duplicates (an event the service already delivered, sent again with
 * its eventId, as after a lost 2xx). A second whose work is not done when the next one starts
 * is not doubled up: the next is skipped and counted as `behind`.
 *
 * Memory stays bounded whatever the length of the run: counters, and rings of the last
 * RING_SIZE invoices and events to pick from.
 */
import { request } from 'undici';
import { signatureHeader, type WebhookEnvelope } from '../src/protocol/index.ts';

const RING_SIZE = 256;

export interface TrafficCounters {
  invoices: number;
  actions: number;
  duplicates: number;
  /** Duplicates answered 503 (the store was locked): the service would send them again. */
  duplicatesRefused: number;
  /** Seconds skipped because the previous one was still busy. */
  behind: number;
  /** Requests that failed or were answered outside what the soak expects; the first few kept. */
  errors: number;
  firstErrors: string[];
}

export interface Traffic {
  counters: TrafficCounters;
  /** Called by the provider's tap for each event it publishes to the consumer's party. */
  published(envelope: WebhookEnvelope): void;
  start(): void;
  /** Stops sending; resolves when the second in progress is done. */
  pause(): Promise<void>;
}

export function createTraffic(options: {
  providerUrl: string;
  webhookUrl: string;
  secret: string;
  /** Invoices per second. */
  rate: number;
  random: () => number;
}): Traffic {
  const { random } = options;
  const counters: TrafficCounters = {
    invoices: 0,
    actions: 0,
    duplicates: 0,
    duplicatesRefused: 0,
    behind: 0,
    errors: 0,
    firstErrors: [],
  };
  const invoices = createRing<string>();
  const events = createRing<WebhookEnvelope>();
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | undefined;

  const fail = (what: string) => {
    counters.errors += 1;
    if (counters.firstErrors.length < 5) counters.firstErrors.push(what);
  };

  async function admin(path: string, body: unknown): Promise<Record<string, unknown>> {
    const res = await request(`${options.providerUrl}/admin${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await res.body.json()) as Record<string, unknown>;
    if (res.statusCode >= 300) throw new Error(`POST ${path}: ${res.statusCode}`);
    return answer;
  }

  async function sendInvoice() {
    const { messageId } = await admin('/messages/inbound', {});
    invoices.push(String(messageId));
    counters.invoices += 1;
  }

  async function businessAction() {
    const messageId = invoices.pick(random);
    if (messageId === undefined) return;
    const draw = random();
    if (draw < 0.5) {
      const statuses = ['electronic', 'non_electronic', 'failed'];
      await admin(`/messages/${messageId}/tax-report`, {
        jurisdiction: 'Croatia',
        status: statuses[Math.floor(random() * statuses.length)],
      });
    } else if (draw < 0.8) {
      await admin(`/messages/${messageId}/payment`, {
        paidAmount: '125.00',
        paymentDate: '2026-11-20',
      });
    } else {
      await admin(`/messages/${messageId}/rejection`, {
        rejectionType: 'Other',
        reason: 'Soak test',
      });
    }
    counters.actions += 1;
  }

  async function duplicate() {
    const envelope = events.pick(random);
    if (envelope === undefined) return;
    const body = JSON.stringify(envelope);
    const res = await request(options.webhookUrl, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'svc-webhook-signature': signatureHeader({
          secrets: [options.secret],
          timestamp: Math.floor(Date.now() / 1000),
          body,
        }),
        'svc-webhook-event-id': envelope.eventId,
        'svc-webhook-action': envelope.action,
        'svc-webhook-transfer': envelope.transfer,
      },
    });
    await res.body.text();
    counters.duplicates += 1;
    if (res.statusCode === 503) counters.duplicatesRefused += 1;
    else if (res.statusCode >= 300) fail(`a duplicate of ${envelope.eventId}: ${res.statusCode}`);
  }

  async function second() {
    const work: Promise<void>[] = [];
    const guard = (what: string, run: () => Promise<void>) =>
      work.push(run().catch((error: unknown) => fail(`${what}: ${String(error)}`)));
    for (let i = 0; i < options.rate; i++) guard('an invoice', sendInvoice);
    for (let i = 0; i < options.rate; i++) guard('a business action', businessAction);
    for (let i = 0; i < Math.ceil(options.rate / 2); i++) guard('a duplicate', duplicate);
    await Promise.all(work);
  }

  return {
    counters,
    published: (envelope) => events.push(envelope),
    start() {
      timer ??= setInterval(() => {
        if (current !== undefined) {
          counters.behind += 1;
          return;
        }
        current = second().finally(() => {
          current = undefined;
        });
      }, 1000);
    },
    async pause() {
      clearInterval(timer);
      timer = undefined;
      await current;
    },
  };
}

/** The last RING_SIZE items, overwritten oldest first. */
function createRing<T>() {
  const items: T[] = [];
  let next = 0;
  return {
    push(item: T) {
      items[next] = item;
      next = (next + 1) % RING_SIZE;
    },
    pick(random: () => number): T | undefined {
      return items.length === 0 ? undefined : items[Math.floor(random() * items.length)];
    },
  };
}
