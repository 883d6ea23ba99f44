import { describe, expect, it } from 'vitest';
import { isKnownAction, parseEnvelope, transactionPath } from '../../../src/protocol/index.ts';

const valid = {
  eventId: 'evt_1',
  action: 'deliveryNotified',
  transfer: 'inbound',
  occurredAt: '2026-11-22T10:00:00.123Z',
  test: false,
  party: '0192:999999999',
  messageId: '6f1c1a0e-8d53-4d4e-9a43-0a3b7f1c2d11',
  data: { uniqueId: '6f1c1a0e-8d53-4d4e-9a43-0a3b7f1c2d11' },
};

describe('parseEnvelope', () => {
  it('accepts a complete envelope and keeps data as is', () => {
    const result = parseEnvelope(valid);
    expect(result).toEqual({ ok: true, envelope: valid });
  });

  it('defaults test to false and data to null when absent', () => {
    const { test: _t, data: _d, ...rest } = valid;
    expect(parseEnvelope(rest)).toEqual({
      ok: true,
      envelope: { ...rest, test: false, data: null },
    });
  });

  it.each(['eventId', 'action', 'transfer', 'occurredAt', 'messageId', 'party'])(
    'names a missing %s',
    (field) => {
      const { [field as keyof typeof valid]: _removed, ...rest } = valid;
      const result = parseEnvelope(rest);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.problems.join(' ')).toContain(field);
    },
  );

  it.each([
    ['eventId', 42],
    ['transfer', 'sideways'],
    ['occurredAt', 'yesterday'],
    ['test', 'true'],
    ['messageId', ''],
  ])('names a mistyped %s', (field, value) => {
    const result = parseEnvelope({ ...valid, [field]: value });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.join(' ')).toContain(field);
  });

  it.each(['.', '..', 'a/b', '../x', 'a\\b', 'a\nb', 'a\u0000b', 'a\u007fb'])(
    'refuses messageId %j, which is not one safe path segment',
    (messageId) => {
      const result = parseEnvelope({ ...valid, messageId });
      expect(result.ok).toBe(false);
      if (!result.ok)
        expect(result.problems.join(' ')).toMatch(
          /^messageId: must (be a single path segment|not contain control characters)/,
        );
    },
  );

  describe.each(['eventId', 'action', 'party', 'messageId'])('%s, an identifier', (field) => {
    it.each([
      ['a C0 control', 'a\u0001b', /control characters/],
      ['a C1 control', 'a\u0085b', /control characters/],
      ['a lone surrogate', 'a\udc00b', /well-formed/],
      ['257 characters', 'x'.repeat(257), /at most 256 characters/],
    ])('is refused with %s', (_what, value, reason) => {
      const result = parseEnvelope({ ...valid, [field]: value });
      expect(result).toEqual({ ok: false, problems: [expect.stringMatching(`^${field}: `)] });
      if (!result.ok) expect(result.problems[0]).toMatch(reason);
    });

    it.each(['x'.repeat(256), 'ä ö 😀 名前', 'with "quotes" and spaces'])('accepts %j', (value) => {
      expect(parseEnvelope({ ...valid, [field]: value }).ok).toBe(true);
    });
  });

  it.each(['6f1c1a0e-8d53-4d4e-9a43-0a3b7f1c2d11', 'm-1', 'a.b', '...', 'ä ö?#%'])(
    'accepts messageId %j',
    (messageId) => {
      expect(parseEnvelope({ ...valid, messageId }).ok).toBe(true);
    },
  );

  it('rejects a body that is not an object', () => {
    expect(parseEnvelope([valid]).ok).toBe(false);
    expect(parseEnvelope(null).ok).toBe(false);
  });
});

describe('actions and transactions', () => {
  it('knows the five documented actions only', () => {
    for (const action of [
      'created',
      'deliveryNotified',
      'messageStatusChanged',
      'taxReportingStatusChanged',
      'lifecycleStatusChanged',
    ]) {
      expect(isKnownAction(action)).toBe(true);
    }
    expect(isKnownAction('documentAdded')).toBe(false);
  });

  it('maps a business transaction name to its kebab-case route', () => {
    expect(transactionPath('SubmitInvoice')).toBe('/transactions/submit-invoice');
    expect(transactionPath('CorrectWithCredit')).toBe('/transactions/correct-with-credit');
    expect(() => transactionPath('../admin')).toThrow(TypeError);
  });
});
