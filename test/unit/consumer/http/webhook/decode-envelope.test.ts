import { describe, expect, it } from 'vitest';
import { decodeEnvelope } from '../../../../../src/consumer/http/webhook/decode-envelope.ts';
import { Rejection } from '../../../../../src/consumer/http/webhook/rejection.ts';
import { buildEnvelope } from '../../../../support/webhooks.ts';

const envelope = buildEnvelope({ eventId: 'evt-1', action: 'created', messageId: 'm-1', data: {} });

function refused(body: Buffer | string): Rejection {
  const result = decodeEnvelope(Buffer.from(body));
  expect(result).toBeInstanceOf(Rejection);
  return result as Rejection;
}

describe('a verified body to an envelope', () => {
  it('returns the envelope of a well-formed body', () => {
    expect(decodeEnvelope(Buffer.from(JSON.stringify(envelope)))).toMatchObject({
      eventId: 'evt-1',
      messageId: 'm-1',
    });
  });

  it('refuses JSON nested past its depth limit before parsing it (400, the limit in type)', () => {
    const bomb = refused(`${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    expect(bomb.outcome).toBe('bad_request');
    expect(bomb.problem.status).toBe(400);
    expect(bomb.problem.type).toBe('urn:webhook-consumer:json-shape:depth');
  });

  it('refuses bytes that are not UTF-8, then text that is not JSON', () => {
    expect(refused(Buffer.from([0x7b, 0xff, 0x7d])).problem.title).toBe('Body is not UTF-8');
    expect(refused('{"eventId": ').problem.title).toBe('Body is not JSON');
  });

  it('refuses an envelope with fields missing, listing each problem', () => {
    const { eventId: _missing, ...rest } = envelope;
    const rejection = refused(JSON.stringify(rest));
    expect(rejection.problem.title).toBe('Invalid event envelope');
    expect(rejection.problem.problems).toEqual([expect.stringContaining('eventId')]);
  });
});
