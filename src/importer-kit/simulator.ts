/**
 * The kit's side of the embedded provider simulator: it makes the inbound messages each case
 * imports, through the admin API as a test or the console would (POST /admin/messages/inbound;
 * an outbound invoice with the participant's acknowledgementResponse set, for an MLR), and
 * waits until the service offers each one (validated, deliveryNotified sent), so that the
 * messaging API serves its documents exactly as it serves them to the consumer.
 */
import { pino } from 'pino';
import { type AdminMethod, callSimulatorAdmin } from '../check-runner/simulator-admin.ts';
import { sampleInvoice } from '../provider/invoice.ts';
import { DEMO_SUPPLIER, type ProviderMessage } from '../provider/model/index.ts';
import { DEFAULT_API_TOKEN, startProvider } from '../provider/provider.ts';

/** What POST /admin/messages/inbound takes besides the invoice's overrides. */
export interface InboundRequest {
  /** Deep-merged into the simulator's sample invoice. */
  invoice?: Record<string, unknown>;
  /** A core document of about this many bytes (a simulator that has the option). */
  coreDocumentBytes?: number;
  /** The core document's type and format (a simulator that has the option). */
  document?: { type: string; format: string };
}

/** The simulator answered an admin request with an error (an option it does not take, say). */
export class SimulatorRefusedError extends Error {
  override readonly name = 'SimulatorRefusedError';
  readonly status: number;
  constructor(what: string, status: number, body: string) {
    super(`the simulator answered ${what} with ${status}: ${body.slice(0, 300)}`);
    this.status = status;
  }
}

export interface KitSimulator {
  /** Base URL of its messaging API (the admin API is under /admin). */
  url: string;
  /** The messaging API's bearer token. */
  apiToken: string;
  /** An invoice from a counterparty to the participant; resolves once it can be fetched. */
  inbound(body: InboundRequest): Promise<string>;
  /**
   * An acknowledgement-level response (MLR or eMLR) to an invoice the participant sent: an
   * inbound message of its own; resolves once it can be fetched.
   */
  response(kind: 'MLR' | 'eMLR'): Promise<string>;
  /** The core document entry of a message, as its descriptor lists it. */
  coreEntry(messageId: string): { name: string; contentType: string } | undefined;
  /** The message's action, e.g. `SubmitInvoice`, `MessageLevelResponse`. */
  action(messageId: string): string;
  close(): Promise<void>;
}

/** How long the simulator may take to validate and offer a message it accepted. */
const OFFER_TIMEOUT_MS = 10_000;

export async function startKitSimulator(): Promise<KitSimulator> {
  const running = await startProvider({
    port: 0,
    host: '127.0.0.1',
    logger: pino({ level: 'silent' }),
  });
  const { model } = running.provider;
  const party = model.participants.sandbox;
  let outboundCounter = 0;

  const admin = <T>(method: AdminMethod, path: string, body?: unknown) =>
    callSimulatorAdmin<T>(
      running.url,
      { method, path, body },
      (status, text) => new SimulatorRefusedError(`${method} /admin${path}`, status, text),
    );

  /** Validation and delivery run on the simulator's next tick: waits for the inbound offer. */
  async function offered(messageId: string): Promise<string> {
    const deadline = Date.now() + OFFER_TIMEOUT_MS;
    for (;;) {
      const message = model.messages.get(messageId);
      if (isOffered(message, party.identifier)) return messageId;
      if (message.validationStatus === 'rejected' || Date.now() > deadline) {
        throw new Error(
          `the simulator never offered message ${messageId} to the participant (validation ${message.validationStatus}, inbound ${message.sides.inbound?.status ?? 'none'})`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  return {
    url: running.url,
    apiToken: DEFAULT_API_TOKEN,

    async inbound(body) {
      const { messageId } = await admin<{ messageId: string }>('POST', '/messages/inbound', body);
      return offered(messageId);
    },

    async response(kind) {
      const path = `/participants/${encodeURIComponent(party.identifier)}/settings`;
      const before = await admin<{ acknowledgementResponse: string }>('GET', path);
      await admin('PUT', path, { acknowledgementResponse: kind });
      let invoiceId: string;
      try {
        outboundCounter += 1;
        const body = sampleInvoice({
          supplier: party,
          customer: DEMO_SUPPLIER,
          invoiceNo: `KIT-OUT-${outboundCounter}`,
          issueDate: new Date().toISOString(),
        });
        ({ messageId: invoiceId } = await admin<{ messageId: string }>(
          'POST',
          '/messages/outbound',
          body,
        ));
        // The response is made when the invoice passes validation, on the next tick.
        const deadline = Date.now() + OFFER_TIMEOUT_MS;
        for (;;) {
          const response = model.messages
            .all()
            .find(
              (m) =>
                (m.body as { referencedMessageId?: unknown }).referencedMessageId === invoiceId,
            );
          if (response !== undefined) return await offered(response.id);
          if (Date.now() > deadline) {
            throw new Error(
              `the simulator made no ${kind} for the participant's invoice ${invoiceId}`,
            );
          }
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      } finally {
        await admin('PUT', path, { acknowledgementResponse: before.acknowledgementResponse });
      }
    },

    coreEntry(messageId) {
      const core = model.messages.get(messageId).documents.find((d) => d.attachmentType === 'Core');
      return core === undefined ? undefined : { name: core.name, contentType: core.contentType };
    },

    action: (messageId) => model.messages.get(messageId).action,

    close: () => running.close(),
  };
}

function isOffered(message: ProviderMessage, party: string): boolean {
  return message.events.some(
    (e) => e.party === party && e.transfer === 'inbound' && e.action === 'deliveryNotified',
  );
}

/** The routing filter's format of a content type (docs/webhook-endpoints.md#routing). */
export function formatOf(contentType: string): 'XML' | 'JSON' | 'PDF' | 'EDI' {
  const type = contentType.toLowerCase();
  if (type.includes('xml')) return 'XML';
  if (type.includes('json')) return 'JSON';
  if (type.includes('pdf')) return 'PDF';
  return 'EDI';
}
