import { describe, expect, it } from 'vitest';
import { createRequestSource } from '../../../bench/webhook-requests.ts';
import {
  EVENT_ID_HEADER,
  parseEnvelope,
  SIGNATURE_HEADER,
  verifySignature,
} from '../../../src/protocol/index.ts';

describe('createRequestSource', () => {
  const secret = 'bench-secret';
  const next = createRequestSource(secret);
  const requests = Array.from({ length: 4 }, () => next());

  it('builds valid envelopes of both kinds, about 3 KB each', () => {
    const actions = requests.map((r) => {
      const parsed = parseEnvelope(JSON.parse(r.body));
      expect(parsed.ok).toBe(true);
      expect(Buffer.byteLength(r.body)).toBeGreaterThan(2_500);
      expect(Buffer.byteLength(r.body)).toBeLessThan(3_500);
      return parsed.ok ? parsed.envelope.action : undefined;
    });
    expect(actions).toEqual([
      'deliveryNotified',
      'messageStatusChanged',
      'deliveryNotified',
      'messageStatusChanged',
    ]);
  });

  it('gives every request its own eventId and messageId, in body and header', () => {
    const bodies = requests.map(
      (r) => JSON.parse(r.body) as { eventId: string; messageId: string },
    );
    expect(new Set(bodies.map((b) => b.eventId)).size).toBe(requests.length);
    expect(new Set(bodies.map((b) => b.messageId)).size).toBe(requests.length);
    requests.forEach((r, i) => {
      expect(r.eventId).toBe(bodies[i]?.eventId);
      expect(r.headers[EVENT_ID_HEADER]).toBe(r.eventId);
    });
  });

  it('signs the exact body with the secret, at the current time', () => {
    for (const r of requests) {
      expect(() =>
        verifySignature({
          header: r.headers[SIGNATURE_HEADER],
          body: Buffer.from(r.body),
          secrets: [secret],
          toleranceSeconds: 5,
        }),
      ).not.toThrow();
    }
  });
});
