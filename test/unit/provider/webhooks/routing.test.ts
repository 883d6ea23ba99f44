/** Routing rules of docs/webhook-endpoints.md#routing as pure functions. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  parseFilter,
  routeEvent,
  validateRules,
} from '../../../../src/provider/webhooks/routing.ts';
import { makeRouting } from '../../../support/event-routing.ts';

const ENDPOINTS = new Set(['a', 'b', 'c']);

describe('parseFilter', () => {
  it('reads comma-separated pairs, trims, and upper-cases formats', () => {
    expect(parseFilter(' Invoice/xml , */EDI,Order/*')).toEqual({
      pairs: [
        { documentType: 'Invoice', format: 'XML' },
        { documentType: '*', format: 'EDI' },
        { documentType: 'Order', format: '*' },
      ],
      problems: [],
    });
  });

  it('names each malformed pair', () => {
    expect(parseFilter('Invoice, /XML,Invoice/DOCX,a/b/c,').problems).toEqual([
      '"Invoice" is not a <document type>/<format> pair',
      '"/XML" is not a <document type>/<format> pair',
      '"Invoice/DOCX" has format "DOCX"; use XML, JSON, PDF, EDI or *',
      '"a/b/c" is not a <document type>/<format> pair',
      '"" is not a <document type>/<format> pair',
    ]);
  });
});

describe('validateRules', () => {
  it('accepts a single rule without a filter (rule 1) and defaults own-change events to on', () => {
    expect(validateRules([{ target: 'a' }], ENDPOINTS)).toEqual({
      rules: [{ target: 'a', statusEventsForOwnChanges: true }],
      violations: [],
    });
  });

  it('requires a filter on each of several rules (rule 2)', () => {
    const { violations } = validateRules(
      [{ target: 'a' }, { target: 'b', filter: '  ' }],
      ENDPOINTS,
    );
    expect(violations).toEqual([
      'rule 1: a filter is required when a category has more than one rule',
      'rule 2: a filter is required when a category has more than one rule',
    ]);
  });

  it.each([
    ['Invoice/XML', 'invoice/xml', 'Invoice/XML'],
    ['Invoice/*', '*/PDF', 'Invoice/PDF'],
    ['*/*', 'Order/EDI', 'Order/EDI'],
    ['CreditNote/JSON,Invoice/XML', 'Invoice/*', 'Invoice/XML'],
  ])('rejects %s and %s as both covering %s (rule 3)', (first, second, common) => {
    const { violations } = validateRules(
      [
        { filter: first, target: 'a' },
        { filter: second, target: 'b' },
      ],
      ENDPOINTS,
    );
    expect(violations).toHaveLength(1);
    expect(violations[0]).toContain(`rules 1 and 2 both cover ${common}`);
  });

  it('accepts disjoint filters and "not sent" targets, and rejects unknown endpoints', () => {
    const ok = validateRules(
      [
        { filter: 'Invoice/*', target: 'a' },
        { filter: 'Order/XML', target: null, statusEventsForOwnChanges: false },
        { filter: 'Order/PDF,CreditNote/EDI', target: 'a' },
      ],
      ENDPOINTS,
    );
    expect(ok.violations).toEqual([]);
    expect(validateRules([{ target: 'z' }], ENDPOINTS).violations).toEqual([
      'rule 1: target z is not an endpoint of this participant',
    ]);
  });

  const TYPES = ['Invoice', 'CreditNote', 'Order', '*'];
  const FORMATS = ['XML', 'JSON', 'PDF', 'EDI', '*'];
  const pair = fc.record({ t: fc.constantFrom(...TYPES), f: fc.constantFrom(...FORMATS) });
  const filter = fc
    .array(pair, { minLength: 1, maxLength: 3 })
    .map((ps) => ps.map((p) => `${p.t}/${p.f}`).join(','));

  it('lets every document type and format reach at most one rule of an accepted set', () => {
    fc.assert(
      fc.property(fc.array(filter, { minLength: 2, maxLength: 4 }), (filters) => {
        const { rules, violations } = validateRules(
          filters.map((f) => ({ filter: f, target: 'a' })),
          ENDPOINTS,
        );
        for (const documentType of TYPES.slice(0, -1)) {
          for (const format of FORMATS.slice(0, -1)) {
            const matching = rules.filter((rule) =>
              parseFilter(rule.filter ?? '').pairs.some(
                (p) =>
                  (p.documentType === '*' || p.documentType === documentType) &&
                  (p.format === '*' || p.format === format),
              ),
            );
            if (violations.length === 0) expect(matching.length).toBeLessThanOrEqual(1);
            else if (matching.length > 1) return; // the overlap was reported
          }
        }
        // A rejected set must contain at least one real overlap.
        expect(violations).toEqual([]);
      }),
    );
  });
});

describe('routeEvent', () => {
  const two = validateRules(
    [
      { filter: 'Invoice/*', target: 'a', statusEventsForOwnChanges: false },
      { filter: 'Order/*', target: null },
    ],
    ENDPOINTS,
  ).rules;

  it('sends everything to a lone rule, whatever its filter says (rule 1)', () => {
    const lone = validateRules([{ filter: 'Order/EDI', target: 'b' }], ENDPOINTS).rules;
    expect(routeEvent(lone, 'created', makeRouting())).toEqual({ send: true, endpointId: 'b' });
  });

  it('has no fallback (rule 4)', () => {
    expect(routeEvent([], 'created', makeRouting())).toEqual({
      send: false,
      reason: 'not sent: the inbound category has no routing rules',
    });
    expect(routeEvent(two, 'created', makeRouting({ documentType: 'CreditNote' }))).toEqual({
      send: false,
      reason: 'not sent: no inbound routing rule matches CreditNote/XML',
    });
  });

  it('drops own-change status events only where switched off, and only status events (rule 6)', () => {
    expect(routeEvent(two, 'messageStatusChanged', makeRouting({ ownChange: true }))).toMatchObject(
      {
        send: false,
      },
    );
    expect(routeEvent(two, 'messageStatusChanged', makeRouting())).toEqual({
      send: true,
      endpointId: 'a',
    });
    expect(routeEvent(two, 'created', makeRouting({ ownChange: true }))).toEqual({
      send: true,
      endpointId: 'a',
    });
  });

  it('honours "not sent"', () => {
    expect(
      routeEvent(two, 'created', makeRouting({ documentType: 'order', format: 'PDF' })),
    ).toEqual({
      send: false,
      reason: 'not sent: inbound rule 2 targets "not sent"',
    });
  });
});
