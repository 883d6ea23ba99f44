/** A provider on a free port with a manual clock and a recording publisher, for these tests. */
import { pino } from 'pino';
import { afterEach, beforeEach, expect } from 'vitest';
import type { WebhookEnvelope } from '../../../src/protocol/index.ts';
import { createManualClock, type ManualClock } from '../../../src/provider/clock.ts';
import type { EventRouting } from '../../../src/provider/events.ts';
import {
  type RunningProvider,
  type StartProviderOptions,
  startProvider,
} from '../../../src/provider/provider.ts';

export const SANDBOX = '0192:999999999';
export const SUPPLIER = '0192:111111111';
export const TOKEN = 'sandbox-token';

export interface RecordedEvent {
  envelope: WebhookEnvelope;
  routing: EventRouting;
}

export interface TestProvider extends RunningProvider {
  clock: ManualClock;
  /** Every event the model published, in order: the recording publisher (a test double). */
  events: RecordedEvent[];
  api(path: string, init?: RequestInit): Promise<Response>;
  admin(path: string, body?: unknown, method?: string): Promise<Response>;
  /** Runs the work the model scheduled "on the next tick" (validation and delivery). */
  settle(): void;
  /** An invoice from the demo supplier to the sandbox participant, validated and delivered. */
  inbound(body?: unknown): Promise<string>;
  /**
   * POST /transactions/submit-invoice as the sandbox participant, expecting 201; the answer.
   * Validation waits for settle(), as it waits for the service's next tick.
   */
  submitInvoice(body: unknown, query?: string): Promise<{ messageId: string; status: string }>;
  /** The events of a message; `deliveryStatus`: only the changes of its delivery status to it. */
  eventsOf(
    messageId: string,
    filter?: { transfer?: string; party?: string; deliveryStatus?: string },
  ): WebhookEnvelope[];
}

export async function startTestProvider(
  options: Omit<StartProviderOptions, 'clock'> & { clock?: ManualClock } = {},
): Promise<TestProvider> {
  const clock = options.clock ?? createManualClock();
  const events: RecordedEvent[] = [];
  const running = await startProvider({
    clock,
    logger: pino({ level: 'silent' }),
    tap: { publish: (envelope, routing) => events.push({ envelope, routing }) },
    ...options,
  });
  const admin = (path: string, body?: unknown, method = 'POST') =>
    fetch(`${running.url}/admin${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${running.url}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        ...init.headers,
      },
    });
  return {
    ...running,
    clock,
    events,
    admin,
    async inbound(body = {}) {
      const res = await admin('/messages/inbound', body);
      if (res.status !== 201) throw new Error(`POST /admin/messages/inbound: ${res.status}`);
      const { messageId } = (await res.json()) as { messageId: string };
      clock.advance(0);
      return messageId;
    },
    api,
    async submitInvoice(body, query = '') {
      const res = await api(`/transactions/submit-invoice${query}`, {
        method: 'POST',
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(201);
      return (await res.json()) as { messageId: string; status: string };
    },
    settle: () => clock.advance(0),
    eventsOf: (messageId, filter = {}) =>
      events
        .map((e) => e.envelope)
        .filter(
          (e) =>
            e.messageId === messageId &&
            (filter.transfer === undefined || e.transfer === filter.transfer) &&
            (filter.party === undefined || e.party === filter.party) &&
            (filter.deliveryStatus === undefined ||
              (e.action === 'messageStatusChanged' &&
                change(e).newValue === filter.deliveryStatus)),
        ),
  };
}

/**
 * A fresh provider for each test of the calling file: started in beforeEach, closed in
 * afterEach. The object returned stays the same and is refilled with each test's provider, so
 * the file's tests and helpers can all use it as a constant.
 */
export function testProviderForEachTest(): TestProvider {
  // Empty until the first beforeEach: nothing may use it outside a test.
  const current = {} as TestProvider;
  beforeEach(async () => {
    Object.assign(current, await startTestProvider());
  });
  afterEach(() => current.close());
  return current;
}

/** The minimum valid submit-invoice body of docs/messaging-api.md#submit-invoice-body, and nothing more. */
export function minimalInvoice(receiver: string) {
  const address = {
    streetNameAndNumber: 'Main Street 1',
    city: 'Oslo',
    postalZone: '0150',
    countryCode: 'NO',
  };
  return {
    messageHandling: { receiverIdentifier: receiver, fallbackEmailAddress: 'ap@example.com' },
    invoice: {
      invoiceNo: 'INV-1001',
      issueDate: '2026-01-05T08:00:00.000Z',
      currencyCode: 'NOK',
      orderReference: { documentNo: 'PO-77', issueDate: '2026-01-02T10:00:00.000Z' },
      supplier: {
        vatNumber: 'NO999999999MVA',
        name: 'Sandbox Participant AS',
        identifier: SANDBOX,
        address,
      },
      customer: { name: 'Buyer & Sons <AS>', identifier: receiver, address },
      invoiceLines: [
        {
          itemNo: 'A-1',
          name: 'Salt',
          quantity: 3,
          unitOfMeasure: { unit: 'kilogram' },
          unitPriceAmount: 10,
          taxCategoryType: 'standard',
          taxableAmount: 30,
          taxAmount: 7.5,
          taxPercentage: 25,
        },
      ],
    },
  };
}

/** The status-change `data` of an event, typed for assertions. */
export function change(event: WebhookEnvelope | undefined) {
  return (event?.data ?? {}) as {
    formerValue?: string;
    newValue?: string;
    properties?: Record<string, string>;
  };
}

export function summary(events: readonly WebhookEnvelope[]): string[] {
  return events.map((e) => {
    const d = change(e);
    return d.newValue === undefined
      ? `${e.transfer}:${e.action}`
      : `${e.transfer}:${e.action}:${d.formerValue}->${d.newValue}`;
  });
}

/** Expects an RFC 9457 problem answer with `status`; its body, for what the test checks in it. */
export async function expectProblem(res: Response, status: number): Promise<unknown> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return res.json();
}

/** Checks that tags balance and every `&` starts an entity: enough to call the XML well-formed here. */
export function assertWellFormed(xml: string): void {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const stack: string[] = [];
  for (const match of body.matchAll(/<(\/?)([A-Za-z][\w:.-]*)([^>]*?)(\/?)>/g)) {
    const [, closing, name, attributes, selfClosing] = match;
    expect(attributes ?? '').toMatch(/^(\s+[\w:.-]+="[^"<]*")*\s*$/);
    if (closing) expect(stack.pop()).toBe(name);
    else if (!selfClosing) stack.push(name as string);
  }
  expect(stack).toEqual([]);
  expect(body.replace(/<[^>]*>/g, '')).not.toMatch(/[<>]|&(?!(amp|lt|gt|quot|apos);)/);
}
