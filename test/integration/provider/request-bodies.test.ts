/**
 * The messaging API takes what its OpenAPI document lists and nothing else (issue 27): a body
 * that is not `application/json` is answered 415 from the headers, after the token check and
 * before anything is read or changed, and mark-as-failed's body is `{"reason"}` only.
 */
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  expectProblem,
  minimalInvoice,
  SUPPLIER,
  TOKEN,
  testProviderForEachTest,
} from './helpers.ts';

const provider = testProviderForEachTest();

/** A call with the token and only the headers given: no Content-Type unless one is passed. */
const call = (
  path: string,
  init: { headers?: Record<string, string>; body?: NonNullable<RequestInit['body']> } = {},
) =>
  fetch(`${provider.url}${path}`, {
    method: 'POST',
    ...init,
    headers: { authorization: `Bearer ${TOKEN}`, ...init.headers },
  });

/** A Buffer body: fetch adds no Content-Type for it, as it does for a string. */
const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));

async function expectUnsupported(res: Response, detail: string) {
  // Exactly these members: a 415 is about the whole body, so no `field`.
  expect(await expectProblem(res, 415)).toEqual({
    type: 'about:blank',
    title: 'Unsupported Media Type',
    status: 415,
    detail,
  });
}

/** The inbound side's status as the participant sees it, and how many events were sent. */
async function state(messageId: string) {
  const res = await provider.api(`/messages/${messageId}`);
  const { status } = (await res.json()) as { status: string };
  return { status, events: provider.events.length };
}

describe('submit-invoice takes application/json only', () => {
  const invoice = minimalInvoice(SUPPLIER);

  it.each([
    ['text/plain', { 'content-type': 'text/plain' }, 'The request body is text/plain'],
    [
      'form data',
      { 'content-type': 'application/x-www-form-urlencoded' },
      'The request body is application/x-www-form-urlencoded',
    ],
    // Another format in JSON syntax; the document lists application/json alone.
    [
      'a +json type',
      { 'content-type': 'application/merge-patch+json' },
      'The request body is application/merge-patch+json',
    ],
    ['no Content-Type', {}, 'The request body has no Content-Type'],
  ])('answers 415 for %s, and creates nothing', async (_name, headers, start) => {
    const res = await call('/transactions/submit-invoice', { headers, body: bytes(invoice) });
    await expectUnsupported(res, `${start}; send it as application/json.`);
    expect(provider.provider.model.messages.all()).toEqual([]);
    expect(provider.events).toEqual([]);
    // Recorded like any other answered call.
    expect(provider.provider.callLog.list().map((c) => c.status)).toEqual([415]);
  });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON;charset=UTF-8',
  ])('accepts %s', async (contentType) => {
    const res = await call('/transactions/submit-invoice', {
      headers: { 'content-type': contentType },
      body: bytes(invoice),
    });
    expect(res.status).toBe(201);
  });

  it('answers an empty body without a Content-Type 400 (not a JSON object), not 415', async () => {
    const res = await call('/transactions/submit-invoice');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ detail: 'The body must be a JSON object.' });
  });

  it('asks for the token first: 401, not 415, and nothing recorded', async () => {
    const res = await fetch(`${provider.url}/transactions/submit-invoice`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify(invoice),
    });
    expect(res.status).toBe(401);
    expect(provider.provider.callLog.list()).toEqual([]);
  });

  it('answers from the headers, before the body has arrived', async () => {
    // 30 MB declared, over the 25 MB limit, none of it sent: only a check that reads nothing
    // can answer, and it answers 415 rather than 413.
    const url = new URL('/transactions/submit-invoice', provider.url);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'text/plain',
          'content-length': String(30 * 1024 * 1024),
        },
      });
      req.on('error', reject);
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body });
          req.destroy();
        });
      });
      req.flushHeaders();
    });
    expect(answer.status).toBe(415);
    expect(JSON.parse(answer.body)).toMatchObject({ title: 'Unsupported Media Type' });
  });
});

describe('mark-as-failed and mark-as-delivered', () => {
  /** Posts a text/plain `body` to `action` of a new inbound message: 415, and nothing changed. */
  async function expectTextRefused(action: string, body: string) {
    const messageId = await provider.inbound();
    const before = await state(messageId);
    const res = await call(`/messages/${messageId}/${action}`, {
      headers: { 'content-type': 'text/plain' },
      body,
    });
    await expectUnsupported(res, 'The request body is text/plain; send it as application/json.');
    expect(await state(messageId)).toEqual(before);
    return before;
  }

  it('mark-as-failed answers 415 for a text/plain body and leaves the message as it was', async () => {
    const before = await expectTextRefused('mark-as-failed', '{"reason": "not parsed"}');
    expect(before.status).toBe('pendingdelivery');
  });

  it('mark-as-delivered answers 415 for a body of another type and leaves the message as it was', async () => {
    await expectTextRefused('mark-as-delivered', 'delivered');
  });

  it.each(['mark-as-delivered', 'mark-as-failed'])(
    '%s with an empty body needs no Content-Type',
    async (action) => {
      const messageId = await provider.inbound();
      // fetch sends Content-Length: 0 for a POST without a body.
      expect((await call(`/messages/${messageId}/${action}`)).status).toBe(204);
      const { status } = await state(messageId);
      expect(status).toBe(action === 'mark-as-delivered' ? 'delivered' : 'failed');
    },
  );

  it('mark-as-failed takes {"reason"} with a charset parameter', async () => {
    const messageId = await provider.inbound();
    const res = await call(`/messages/${messageId}/mark-as-failed`, {
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: bytes({ reason: 'duplicate invoice number' }),
    });
    expect(res.status).toBe(204);
    expect((await state(messageId)).status).toBe('failed');
  });
});

describe('the mark-as-failed body is closed', () => {
  const markAsFailed = (messageId: string, body: unknown) =>
    provider.api(`/messages/${messageId}/mark-as-failed`, {
      method: 'POST',
      body: JSON.stringify(body),
    });

  it('answers 400 naming one unknown key, and leaves the message as it was', async () => {
    const messageId = await provider.inbound();
    const before = await state(messageId);
    const res = await markAsFailed(messageId, { reason: 'x', code: 'y' });
    expect(await expectProblem(res, 400)).toEqual({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      detail: 'The body, when given, must be {"reason": "<text>"}. Unknown key: "code".',
      field: 'code',
      violations: ['code: not a field of this body'],
    });
    expect(await state(messageId)).toEqual(before);
  });

  it('names every unknown key, and a reason that is not text, with no single field', async () => {
    const messageId = await provider.inbound();
    const res = await markAsFailed(messageId, { reason: 7, code: 'y', details: {} });
    expect(res.status).toBe(400);
    const problem = (await res.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({
      detail:
        'The body, when given, must be {"reason": "<text>"}. Unknown keys: "code", "details".',
      violations: [
        'reason: must be a string',
        'code: not a field of this body',
        'details: not a field of this body',
      ],
    });
    expect(problem).not.toHaveProperty('field');
  });

  it('still answers a reason that is not text with field reason', async () => {
    const messageId = await provider.inbound();
    const res = await markAsFailed(messageId, { reason: 7 });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ field: 'reason' });
  });

  it('takes {} and {"reason"} alone', async () => {
    const first = await provider.inbound();
    expect((await markAsFailed(first, {})).status).toBe(204);
    const second = await provider.inbound();
    expect((await markAsFailed(second, { reason: 'cannot book it' })).status).toBe(204);
  });
});

describe('JSON bodies are bounded in shape before they are parsed', () => {
  it('answers 400 for a body nested beyond 64 levels, where it answered 500, and creates nothing', async () => {
    const messages = provider.events.length;
    // An object, so that it passes the body's own check and reaches what walks it.
    const deep = `${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`;
    const res = await call('/transactions/submit-invoice', {
      headers: { 'content-type': 'application/json' },
      body: deep,
    });
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { detail: string };
    expect(problem.detail).toMatch(/^The request body is too deeply nested or too wide: /);
    expect(provider.events.length).toBe(messages);
    // A real invoice still goes through.
    const ok = await call('/transactions/submit-invoice', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(minimalInvoice(SUPPLIER)),
    });
    expect(ok.status).toBe(201);
  });
});
