/**
 * Reference (g): the floor. The least an ingress can do and still keep the service's
 * promise on this consumer's inbox: read the body, verify its signature over the raw bytes
 * (protocol's verifySignature), JSON.parse it, insert the event as the consumer builds it
 * (newEvent) with the consumer's own insert and connection from a writer thread, committed
 * with synchronous=FULL (floor-writer.ts), and answer 204 after the commit. It leaves out all
 * the consumer adds: the JSON shape scan, strict UTF-8 and the envelope's validation, the
 * admission limits and the bounded read, metrics, logs and spans, and every error answer but
 * 401.
 *
 * So the ratio of (c) to (g) says what the consumer's own code costs, and (g)'s ratio to (b)
 * what a durable insert into this inbox costs on the machine: a target above (g)'s ratio to
 * (b) cannot be met by any change to the request's code alone. Runs as a child process of the
 * runner (see server-process.ts), with the secret and file it is given.
 */
import { createServer } from 'node:http';
import { Worker } from 'node:worker_threads';
import { newEvent } from '../src/consumer/store/events.ts';
import { headerValue } from '../src/consumer/text/header-value.ts';
import {
  SIGNATURE_HEADER,
  SignatureError,
  verifySignature,
  type WebhookEnvelope,
} from '../src/protocol/index.ts';
import { closeServer, listenOnLoopback } from '../test/support/loopback-server.ts';
import type { FloorBatch } from './floor-writer.ts';
import { serveControl } from './server-control.ts';

const secret = process.env.FLOOR_SECRET;
const path = process.env.FLOOR_DATABASE;
if (!secret || !path) throw new Error('floor-server.ts needs FLOOR_SECRET and FLOOR_DATABASE');

const writer = new Worker(new URL('./floor-writer.ts', import.meta.url), { workerData: { path } });
// A writer that fails ends this process: the runner then fails the run with the reason
// (server-process.ts), rather than measuring answers that never come.
writer.on('error', (error) => {
  throw error;
});
const waiting = new Map<number, () => void>();
writer.on('message', (ids: number[]) => {
  for (const id of ids) {
    waiting.get(id)?.();
    waiting.delete(id);
  }
});
let nextId = 0;
let queued: FloorBatch = [];
// One message to the writer per event-loop turn, as the consumer's writer client sends.
const flush = () => {
  writer.postMessage(queued);
  queued = [];
};

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    try {
      verifySignature({
        header: headerValue(req.headers, SIGNATURE_HEADER),
        body,
        secrets: [secret],
        toleranceSeconds: 300,
      });
    } catch (error) {
      if (!(error instanceof SignatureError)) throw error;
      res.statusCode = 401;
      res.end();
      return;
    }
    // The event as the consumer stores it (store/events.ts), its envelope read unchecked.
    const envelope = JSON.parse(body.toString('utf8')) as WebhookEnvelope;
    const id = nextId++;
    waiting.set(id, () => {
      res.statusCode = 204;
      res.end();
    });
    if (queued.length === 0) setImmediate(flush);
    queued.push({ id, event: newEvent(envelope, body, Date.now()) });
  });
});
serveControl(`${await listenOnLoopback(server)}/webhooks`, async () => {
  await closeServer(server);
  writer.postMessage('close');
  await new Promise((resolve) => writer.once('exit', resolve));
});
