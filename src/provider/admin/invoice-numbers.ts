/**
 * Numbers of the invoices the inbound scenario (and with it the sandbox's demo traffic) sends.
 * An ERP refuses an invoice number it already booked from the same supplier, so a number must
 * not come back when the sandbox restarts: each run numbers its invoices in a series named
 * after the moment it started, `INV-<yyyymmdd>-<hhmmss.mmm>-<n>` in UTC, for example
 * `INV-20260105-090000.000-00001`. Two runs would have to start in the same millisecond to
 * share a series.
 */
export interface InvoiceNumbers {
  /** The next number of this run's series. */
  next(): string;
}

export function createInvoiceNumbers(startedAtMs: number): InvoiceNumbers {
  const iso = new Date(startedAtMs).toISOString(); // 2026-01-05T09:00:00.000Z
  const series = `${iso.slice(0, 10).replaceAll('-', '')}-${iso.slice(11, 23).replaceAll(':', '')}`;
  let count = 0;
  return {
    next() {
      count += 1;
      return `INV-${series}-${String(count).padStart(5, '0')}`;
    },
  };
}
