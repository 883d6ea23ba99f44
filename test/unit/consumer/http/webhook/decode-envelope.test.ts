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

  it('refuses each limit at the smallest body that breaks it, whatever else the body is', () => {
    // No body is spared the scan for its size (decode-envelope.ts says why): the smallest
    // bodies that break each limit, valid JSON or not, and one a step inside each limit.
    const shape = (body: string) => refused(body).problem.type;
    expect(shape('['.repeat(33))).toBe('urn:webhook-consumer:json-shape:depth');
    expect(shape(`${'['.repeat(33)}${']'.repeat(33)}`)).toBe(
      'urn:webhook-consumer:json-shape:depth',
    );
    expect(refused(`${'['.repeat(32)}${']'.repeat(32)}`).problem.title).toBe(
      'Invalid event envelope',
    );
    // Depth behind a key given twice: JSON.parse would keep the second, the scan sees both.
    const hidden = `{"a":${'['.repeat(33)}${']'.repeat(33)},"a":1}`;
    expect(refused(hidden).problem).toMatchObject({
      type: 'urn:webhook-consumer:json-shape:depth',
      detail: expect.stringMatching(
        /^the JSON nests arrays and objects deeper than allowed \(32\) at byte 36;/,
      ),
    });
    // A thousand and one members: as bare colons (1,003 bytes), as one key over and over.
    expect(shape(`{${':'.repeat(1_001)}}`)).toBe('urn:webhook-consumer:json-shape:keys');
    const members = (n: number) => `{${Array(n).fill('"":0').join(',')}}`;
    expect(shape(members(1_001))).toBe('urn:webhook-consumer:json-shape:keys');
    expect(refused(members(1_000)).problem.title).toBe('Invalid event envelope');
    // A string one byte over, counted as written (an escape is two bytes), and one at it.
    const string = (n: number) => JSON.stringify({ ...envelope, note: `\n${'x'.repeat(n - 2)}` });
    expect(shape(string(256 * 1024 + 1))).toBe('urn:webhook-consumer:json-shape:string');
    expect(decodeEnvelope(Buffer.from(string(256 * 1024)))).toMatchObject({ eventId: 'evt-1' });
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
