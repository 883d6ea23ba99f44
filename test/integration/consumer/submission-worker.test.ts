/**
 * The submission loop's answers to what the simulator does not do (src/consumer/submit): a
 * service that refuses an invoice with a 4xx, and one that ignores GET /messages' documentNo
 * filter. The service here is a fake (a real HTTP server on a free port answering as such a
 * service would), named as such; the store is a real SQLite file.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../src/consumer/api/index.ts';
import {
  createSubmissionWorker,
  type SubmissionOutcome,
  type SubmissionWorker,
} from '../../../src/consumer/submit/submission-worker.ts';
import { eventually } from '../../support/sandbox.ts';
import { openTempStore } from '../../support/sqlite.ts';

type TempStore = Awaited<ReturnType<typeof openTempStore>>;
let store: TempStore | undefined;
let server: Server | undefined;
let worker: SubmissionWorker | undefined;
let outcomes: SubmissionOutcome[] = [];
afterEach(async () => {
  await worker?.stop();
  await store?.dispose();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  worker = undefined;
  store = undefined;
  outcomes = [];
  server = undefined;
});

/** A fake service: `answer` decides each call's status and JSON body. */
async function fakeService(
  answer: (method: string, url: string) => { status: number; body: unknown },
) {
  const calls: string[] = [];
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls.push(`${req.method} ${req.url}`);
      const { status, body } = answer(req.method ?? '', req.url ?? '');
      res.writeHead(status, {
        'content-type': status >= 400 ? 'application/problem+json' : 'application/json',
      });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, calls };
}

async function run(serviceUrl: string) {
  store = await openTempStore();
  const api = createApiClient({ baseUrl: serviceUrl, token: 't', maxRetries: 0 });
  worker = createSubmissionWorker({
    submissions: store.submissions,
    api,
    logger: pino({ level: 'silent' }),
    now: Date.now,
    pollMs: 10,
    lookupDelayMs: 0,
    retryBaseMs: 20,
    retryMaxMs: 40,
    onOutcome: (outcome) => outcomes.push(outcome),
  });
  worker.start();
  return store;
}

describe('the submission loop against a fake service', () => {
  it('settles an invoice the service refuses with a 4xx as refused, once, and tells the sink', async () => {
    const service = await fakeService(() => ({
      status: 422,
      body: { title: 'Unprocessable', status: 422, detail: 'receiverIdentifier is unknown' },
    }));
    const s = await run(service.url);
    await s.submissions.add(
      { invoiceNo: 'R-1', body: '{"invoice":{}}', bodyHash: 'h' },
      Date.now(),
    );
    worker?.notify();
    const refused = await eventually(async () => {
      const row = await s.submissions.get('R-1');
      return row?.state === 'refused' ? row : undefined;
    }, 'the refusal');
    expect(refused.lastError).toContain('HTTP 422');
    expect(service.calls).toEqual(['POST /transactions/submit-invoice?more=false']);
    const [row] = await s.sinkOutbox.list({ limit: 10 });
    expect(row?.notice).toMatchObject({
      kind: 'submission',
      invoiceNo: 'R-1',
      messageId: null,
      newValue: 'refused',
    });
  });

  it('takes a 401 for not sent, and sends after a lookup once the service takes the call', async () => {
    let posts = 0;
    const service = await fakeService((method) => {
      if (method === 'GET') return { status: 200, body: { items: [], nextCursor: null } };
      posts += 1;
      return posts === 1
        ? { status: 401, body: { title: 'Unauthorized', status: 401 } }
        : { status: 201, body: { messageId: 'msg-after-401', status: 'received' } };
    });
    const s = await run(service.url);
    await s.submissions.add(
      { invoiceNo: 'A-1', body: '{"invoice":{}}', bodyHash: 'h' },
      Date.now(),
    );
    worker?.notify();
    const submitted = await eventually(async () => {
      const row = await s.submissions.get('A-1');
      return row?.state === 'submitted' ? row : undefined;
    }, 'the submit after the 401');
    expect(submitted).toMatchObject({
      messageId: 'msg-after-401',
      resolvedBy: 'reply',
      attempts: 2,
    });
    // The loop tells the outcome just after the store write the wait above saw.
    await eventually(async () => outcomes.length === 2, 'the second outcome');
    expect(outcomes).toEqual(['not_sent', 'submitted']);
    expect(service.calls.map((c) => c.split('?')[0])).toEqual([
      'POST /transactions/submit-invoice',
      'GET /messages',
      'POST /transactions/submit-invoice',
    ]);
  });

  it('never sends again while a service that ignores the documentNo filter leaves it unsure', async () => {
    // The first submit's reply is a 500 (maybe acted on); every list page is somebody else's
    // messages with one more page to come.
    let page = 0;
    const service = await fakeService((method) => {
      if (method === 'POST') return { status: 500, body: { title: 'Boom', status: 500 } };
      page += 1;
      return {
        status: 200,
        body: {
          items: [{ ...OTHER_MESSAGE, uniqueId: `other-${page}` }],
          nextCursor: `c${page}`,
        },
      };
    });
    const s = await run(service.url);
    await s.submissions.add(
      { invoiceNo: 'U-1', body: '{"invoice":{}}', bodyHash: 'h' },
      Date.now(),
    );
    worker?.notify();
    const unsure = await eventually(async () => {
      const row = await s.submissions.get('U-1');
      return row?.lastError?.includes('not decided') ? row : undefined;
    }, 'an undecided lookup');
    expect(unsure).toMatchObject({ state: 'unknown', attempts: 1, messageId: null });
    expect(service.calls.filter((call) => call.startsWith('POST'))).toHaveLength(1);
    expect(service.calls.filter((call) => call.startsWith('GET'))[0]).toContain('documentNo=U-1');
  });
});

const OTHER_MESSAGE = {
  uniqueId: 'other',
  timeReceived: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  documentNo: 'SOMEONE-ELSES',
  status: 'delivered',
  transfer: 'outbound',
  validationStatus: 'approved',
  taxReportingStatus: 'none',
  lifecycleStatus: 'none',
  importStatus: 'NotSet',
  action: 'SubmitInvoice',
  originParty: { identifier: '0192:999999999', name: 'Us', countryCode: 'NO' },
  destinationParty: { identifier: '0192:123456785', name: 'Them', countryCode: 'NO' },
  documents: [],
};
