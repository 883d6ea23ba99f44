/**
 * A STAND-IN for the messaging API, for the tests of the API client: a real HTTP server on a
 * free port that records each request and answers with what the test scripted, one rule of the
 * client per test (auth, retries, timeouts, paging, routes). It is not the provider simulator;
 * the end-to-end tests run the client against that one. With it: the usual answers to script
 * (JSON, a bare status, no answer, a body dripped slowly), a message descriptor to answer
 * with, and the ApiError a call failed with.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { ApiError } from '../../src/consumer/api/index.ts';
import type { MessageDescriptor } from '../../src/protocol/index.ts';
import { descriptorOf } from './descriptors.ts';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Answers one request; may leave `res` open to simulate a hang. */
export type Responder = (res: ServerResponse, req: RecordedRequest) => void;

export interface StandIn {
  baseUrl: string;
  requests: RecordedRequest[];
  /** Answers in turn; the last one repeats. */
  script(...responders: Responder[]): void;
  close(): Promise<void>;
}

export async function startMessagingApiStandIn(): Promise<StandIn> {
  const requests: RecordedRequest[] = [];
  let responders: Responder[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    requests.push(recorded);
    const responder = responders.length > 1 ? responders.shift() : responders[0];
    if (responder === undefined) {
      res.writeHead(500).end('no responder scripted');
      return;
    }
    responder(res, recorded);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    script: (...next) => {
      responders = next;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Responder =>
  (res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

export const status =
  (code: number, headers: Record<string, string> = {}): Responder =>
  (res) => {
    res.writeHead(code, headers).end();
  };

export const hang: Responder = () => {};

/**
 * Headers at once, then the body `bytes` at a time every `everyMs`: each wait shorter than any
 * per-wait timeout of the tests (issue 26). What has come due goes out by the clock, not one
 * piece a tick: on a loaded machine a timer fires late, and one piece a tick then sent the
 * body more slowly than the test meant (a document dripped at 2,000 bytes/s once arrived at 975
 * bytes/s and was given up as under its minimum of 1,000).
 */
export const drip =
  (body: string | Buffer, everyMs: number, bytes = 1): Responder =>
  (res) => {
    const whole = Buffer.from(body);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': whole.length });
    res.flushHeaders();
    const started = performance.now();
    let sent = 0;
    const timer = setInterval(() => {
      if (sent >= whole.length) {
        clearInterval(timer);
        res.end();
        return;
      }
      const ticks = Math.floor((performance.now() - started) / everyMs);
      const due = Math.min(whole.length, Math.max(sent + bytes, ticks * bytes));
      res.write(whole.subarray(sent, due));
      sent = due;
    }, everyMs);
    res.on('close', () => clearInterval(timer));
  };

/** A valid inbound message descriptor with one core document. */
export function exampleDescriptor(uniqueId: string): MessageDescriptor {
  return descriptorOf({
    uniqueId,
    documentNo: `INV-${uniqueId}`,
    documents: [
      {
        index: 0,
        name: 'Invoice',
        contentType: 'application/xml',
        attachmentType: 'Core',
        isTransformed: false,
      },
    ],
  });
}

/** The ApiError a call failed with; the test fails if it succeeded or threw something else. */
export async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}
