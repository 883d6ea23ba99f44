import { expect, it } from 'vitest';
import { createInvoiceNumbers } from '../../../../src/provider/admin/invoice-numbers.ts';

const START = Date.parse('2026-01-05T09:00:00.000Z');

it('numbers a run’s invoices in a series named after its start, readable and in order', () => {
  const numbers = createInvoiceNumbers(START);
  expect([numbers.next(), numbers.next()]).toEqual([
    'INV-20260105-090000.000-00001',
    'INV-20260105-090000.000-00002',
  ]);
});

it('never repeats a number of an earlier run, even one restarted a millisecond later', () => {
  const first = createInvoiceNumbers(START);
  const restarted = createInvoiceNumbers(START + 1);
  const earlier = new Set(Array.from({ length: 1000 }, () => first.next()));
  for (let i = 0; i < 1000; i++) expect(earlier.has(restarted.next())).toBe(false);
});
