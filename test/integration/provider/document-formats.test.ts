/**
 * Inbound messages of every document type and format (docs/messaging-api.md#document-formats):
 * the descriptor names the core document and its content type, GET /messages/:mid/documents/core
 * serves it in that format, the transaction JSON stays the invoice JSON, and the participant's
 * routing filters (`<document type>/<format>`) route the message's events by it. A core document
 * can be padded to a size, and is then streamed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocumentEntry, MessageDescriptor } from '../../../src/protocol/index.ts';
import { assertWellFormed, SANDBOX, testProviderForEachTest } from './helpers.ts';
import { type RecordingEndpoint, startRecordingEndpoint } from './webhooks/recording-endpoint.ts';

const TYPES = ['Invoice', 'CreditNote', 'Order'] as const;
const FORMATS = ['XML', 'JSON', 'PDF', 'EDI'] as const;
const CONTENT_TYPES = {
  XML: 'application/xml',
  JSON: 'application/json',
  PDF: 'application/pdf',
  EDI: 'application/edifact',
} as const;
const XML_ROOTS = {
  Invoice: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  CreditNote: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
  Order: 'urn:oasis:names:specification:ubl:schema:xsd:Order-2',
} as const;
const EDI_HEADERS = {
  Invoice: "UNH+1+INVOIC:D:96A:UN'\nBGM+380+",
  CreditNote: "UNH+1+INVOIC:D:96A:UN'\nBGM+381+",
  Order: "UNH+1+ORDERS:D:96A:UN'\nBGM+220+",
} as const;

const provider = testProviderForEachTest();

async function inbound(body: Record<string, unknown>): Promise<string> {
  return provider.inbound(body);
}

async function descriptor(messageId: string): Promise<MessageDescriptor> {
  return (await (await provider.api(`/messages/${messageId}`)).json()) as MessageDescriptor;
}

describe.each(TYPES)('a %s', (type) => {
  it.each(FORMATS)(
    'in %s: listed with its content type, served in it, the JSON unchanged',
    async (format) => {
      const messageId = await inbound({ document: { type, format } });
      const { documents, documentNo } = await descriptor(messageId);
      expect(documents.map(({ transaction: _t, ...entry }) => entry)).toEqual([
        {
          index: 0,
          name: type,
          contentType: CONTENT_TYPES[format],
          attachmentType: 'Core',
          isTransformed: false,
        },
        {
          index: 1,
          name: type,
          contentType: 'application/json',
          attachmentType: 'Original',
          isTransformed: false,
        },
      ]);
      expect(documents[0]?.transaction?.transactionKeyName).toMatch(
        format === 'EDI' ? /^EdifactD96A/ : /^PeppolBis/,
      );

      const transaction = await provider.api(`/transactions/submit-invoice?messageId=${messageId}`);
      const invoiceJson = await transaction.text();
      expect(JSON.parse(invoiceJson).invoice.invoiceNo).toBe(documentNo);

      const res = await provider.api(`/messages/${messageId}/documents/core`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')?.split(';')[0]).toBe(CONTENT_TYPES[format]);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
      const text = bytes.toString(format === 'XML' || format === 'JSON' ? 'utf8' : 'latin1');
      switch (format) {
        case 'XML':
          assertWellFormed(text);
          expect(text).toMatch(
            new RegExp(`^<\\?xml[^>]*\\?>\\n<${type} xmlns="${XML_ROOTS[type]}"`),
          );
          expect(text).toContain(`<cbc:ID>${documentNo}</cbc:ID>`);
          break;
        case 'JSON':
          expect(text).toBe(invoiceJson);
          break;
        case 'PDF':
          expect(text.startsWith('%PDF-1.4\n')).toBe(true);
          expect(text.endsWith('%%EOF\n')).toBe(true);
          expect(text).toContain(
            `(${type === 'CreditNote' ? 'Credit note' : type} ${documentNo}) Tj`,
          );
          break;
        case 'EDI':
          expect(text.startsWith("UNA:+.? '\nUNB+UNOC:3+")).toBe(true);
          expect(text).toContain(`${EDI_HEADERS[type]}${documentNo}+9'`);
          break;
      }
    },
  );
});

describe('routing filters', () => {
  let recorder: RecordingEndpoint;
  beforeEach(async () => {
    recorder = await startRecordingEndpoint();
  });
  afterEach(() => recorder.close());

  it('route each message’s events by its core document’s type and format', async () => {
    const { dispatcher } = provider.provider;
    // One endpoint and one rule per combination but the last, which no rule covers.
    const combinations = TYPES.flatMap((type) => FORMATS.map((format) => `${type}/${format}`));
    const endpointOf = new Map<string, string>();
    for (const combination of combinations.slice(0, -1)) {
      const { endpoint } = dispatcher.createEndpoint(SANDBOX, {
        name: combination,
        url: recorder.url,
      });
      endpointOf.set(combination, endpoint.id);
    }
    dispatcher.setRules(
      SANDBOX,
      'inbound',
      [...endpointOf].map(([filter, target]) => ({ filter, target })),
    );

    const sent = new Map<string, string>();
    for (const combination of combinations) {
      const [type, format] = combination.split('/');
      sent.set(combination, await inbound({ document: { type, format } }));
    }
    await dispatcher.idle();

    for (const [combination, messageId] of sent) {
      const deliveries = dispatcher.deliveries(SANDBOX, { messageId });
      expect(deliveries.map((d) => d.action).sort()).toEqual([
        'created',
        'deliveryNotified',
        'messageStatusChanged',
      ]);
      for (const delivery of deliveries) {
        if (endpointOf.has(combination)) {
          expect(delivery).toMatchObject({
            state: 'succeeded',
            endpointId: endpointOf.get(combination),
          });
        } else {
          expect(delivery).toMatchObject({
            state: 'exhausted',
            reason: `not sent: no inbound routing rule matches ${combination}`,
          });
        }
      }
    }
    expect(recorder.requests).toHaveLength(3 * (combinations.length - 1));
  });

  it('route a message without a chosen document as Invoice/XML, as before', async () => {
    const messageId = await inbound({});
    const published = provider.events.filter((e) => e.envelope.messageId === messageId);
    expect(published.length).toBeGreaterThan(0);
    for (const { routing } of published) {
      expect(routing).toMatchObject({ documentType: 'Invoice', format: 'XML' });
    }
    expect(
      (await descriptor(messageId)).documents.map((d: DocumentEntry) => d.contentType),
    ).toEqual(['application/xml', 'application/json']);
  });
});

describe('coreDocumentBytes', () => {
  it.each(FORMATS)(
    'pads a %s core document to at least the size asked for, still in its format',
    async (format) => {
      const minBytes = 3 * 1024 * 1024 + 1;
      const messageId = await inbound({
        document: { type: 'Invoice', format },
        coreDocumentBytes: minBytes,
      });
      const res = await provider.api(`/messages/${messageId}/documents/core`);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.length).toBeGreaterThanOrEqual(minBytes);
      expect(bytes.length).toBeLessThan(minBytes + 1024);
      expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
      const text = bytes.toString(format === 'PDF' || format === 'EDI' ? 'latin1' : 'utf8');
      switch (format) {
        case 'XML': {
          assertWellFormed(text);
          const base64 = /filename="padding.csv">([A-Za-z0-9+/=]+)</.exec(text)?.[1] ?? '';
          const rows = Buffer.from(base64, 'base64').toString('utf8').split('\n');
          expect(rows.length).toBeGreaterThan(30_000);
          expect(new Set(rows.slice(0, -1))).toEqual(
            new Set(['padding,a row the simulator adds to make the core document larger']),
          );
          break;
        }
        case 'JSON': {
          const plain = await provider.api(`/transactions/submit-invoice?messageId=${messageId}`);
          expect(JSON.parse(text)).toEqual(await plain.json());
          break;
        }
        case 'PDF':
          expect(text).toContain('/EmbeddedFiles');
          expect(text.endsWith('%%EOF\n')).toBe(true);
          break;
        case 'EDI': {
          // UNT counts the segments from UNH to UNT, the padding's free-text segments included.
          const segments = text.split("'\n");
          const unh = segments.findIndex((s) => s.startsWith('UNH+'));
          const unt = segments.findIndex((s) => s.startsWith('UNT+'));
          expect(segments[unt]).toBe(`UNT+${unt - unh + 1}+1`);
          expect(segments.filter((s) => s.startsWith('FTX+AAI+++')).length).toBeGreaterThan(6_000);
          break;
        }
      }
    },
  );

  it('streams a document of gigabytes without building it: its length is known at once', async () => {
    const size = 4 * 1024 ** 3;
    const messageId = await inbound({ coreDocumentBytes: size });
    const controller = new AbortController();
    const res = await provider.api(`/messages/${messageId}/documents/core`, {
      signal: controller.signal,
    });
    expect(Number(res.headers.get('content-length'))).toBeGreaterThanOrEqual(size);
    const reader = res.body?.getReader();
    const first = await reader?.read();
    expect(Buffer.from(first?.value ?? []).toString('utf8')).toMatch(/^<\?xml /);
    controller.abort();
    await reader?.cancel().catch(() => {});
  });

  it('refuses a size or a document it cannot make, naming every problem', async () => {
    const res = await provider.admin('/messages/inbound', {
      document: { type: 'DespatchAdvice', format: 'xml' },
      coreDocumentBytes: 0,
    });
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { violations: string[] };
    expect(problem.violations).toEqual([
      expect.stringMatching(/^document\.type: .*"Invoice"\|"CreditNote"\|"Order"/),
      expect.stringMatching(/^document\.format: .*"XML"\|"JSON"\|"PDF"\|"EDI"/),
      expect.stringMatching(/^coreDocumentBytes: /),
    ]);
  });
});
