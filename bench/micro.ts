/**
 * Tight-loop timings of the per-request steps, on one core with no I/O, to show what share
 * of the ingress time each takes: the consumer's signature check and envelope parse, and
 * the load client's own request generation (which must stay well above the measured rates).
 */
import { parseEnvelope, SIGNATURE_HEADER, verifySignature } from '../src/protocol/index.ts';
import { createRequestSource, type WebhookRequest } from './webhook-requests.ts';

export interface MicroResult {
  name: string;
  opsPerSecond: number;
  microsPerOp: number;
  bodyBytes: number;
}

export function runMicroBenchmarks(secret: string, seconds: number): MicroResult[] {
  const next = createRequestSource(secret);
  const sample: WebhookRequest = next();
  const body = Buffer.from(sample.body);
  const header = sample.headers[SIGNATURE_HEADER];
  const bodyBytes = body.length;
  return [
    time('verifySignature (HMAC-SHA256)', seconds, bodyBytes, () => {
      verifySignature({ header, body, secrets: [secret], toleranceSeconds: 300 });
    }),
    time('JSON.parse + parseEnvelope', seconds, bodyBytes, () => {
      if (!parseEnvelope(JSON.parse(body.toString('utf8'))).ok) throw new Error('bad envelope');
    }),
    time('client: build + sign a request', seconds, bodyBytes, () => {
      next();
    }),
  ];
}

function time(name: string, seconds: number, bodyBytes: number, op: () => void): MicroResult {
  // A short warm-up so the JIT has compiled the loop before it is timed.
  for (let i = 0; i < 2_000; i++) op();
  const deadline = performance.now() + seconds * 1000;
  let ops = 0;
  const started = performance.now();
  let now = started;
  // Checking the clock every 256 operations keeps its cost out of the figure.
  do {
    for (let i = 0; i < 256; i++) op();
    ops += 256;
    now = performance.now();
  } while (now < deadline);
  const elapsed = (now - started) / 1000;
  return { name, opsPerSecond: ops / elapsed, microsPerOp: (elapsed * 1e6) / ops, bodyBytes };
}
