/**
 * The messages table's three columns per status kind (value, the occurredAt it was set at,
 * and whether the service confirmed it), named alike in the SQLite and PostgreSQL schemas.
 */
import type { StatusKind } from '../../protocol/index.ts';

export const STATUS_COLUMNS: Record<StatusKind, { value: string; at: string; confirmed: string }> =
  {
    delivery: { value: 'delivery_status', at: 'delivery_at', confirmed: 'delivery_confirmed' },
    taxReporting: {
      value: 'tax_reporting_status',
      at: 'tax_reporting_at',
      confirmed: 'tax_reporting_confirmed',
    },
    lifecycle: { value: 'lifecycle_status', at: 'lifecycle_at', confirmed: 'lifecycle_confirmed' },
  };

export const STATUS_KINDS = Object.keys(STATUS_COLUMNS) as StatusKind[];
