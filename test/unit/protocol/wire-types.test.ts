/**
 * The wire types a forker reads from the importer's entry (src/consumer/importer/index.ts) are
 * the protocol's own, and the documented names agree with the lists the code uses. These are
 * type-level checks: `npm run typecheck` fails when they do not hold.
 */
import { expectTypeOf, it } from 'vitest';
import type * as entry from '../../../src/consumer/importer/index.ts';
import type * as protocol from '../../../src/protocol/index.ts';

/** The named keys of a type with an index signature. */
type NamedKeys<T> = keyof { [K in keyof T as string extends K ? never : K]: T[K] };

it('StatusProperties documents exactly the names of STATUS_PROPERTY_NAMES', () => {
  expectTypeOf<NamedKeys<protocol.StatusProperties>>().toEqualTypeOf<protocol.StatusPropertyName>();
});

it('the importer entry exports the protocol’s wire types, not copies', () => {
  expectTypeOf<entry.SubmitInvoiceBody>().toEqualTypeOf<protocol.SubmitInvoiceBody>();
  expectTypeOf<entry.AcknowledgementResponseBody>().toEqualTypeOf<protocol.AcknowledgementResponseBody>();
  expectTypeOf<entry.MessageDescriptor>().toEqualTypeOf<protocol.MessageDescriptor>();
  expectTypeOf<entry.WebhookEnvelope>().toEqualTypeOf<protocol.WebhookEnvelope>();
  expectTypeOf<entry.StatusChange>().toEqualTypeOf<protocol.StatusChange>();
  expectTypeOf<entry.ValidationResult>().toEqualTypeOf<protocol.ValidationResult>();
});

it('TransactionJson picks the JSON by action and leaves other actions unknown', () => {
  expectTypeOf<
    entry.TransactionJson<'SubmitInvoice'>
  >().toEqualTypeOf<protocol.SubmitInvoiceBody>();
  expectTypeOf<
    entry.TransactionJson<'EMessageLevelResponse'>
  >().toEqualTypeOf<protocol.AcknowledgementResponseBody>();
  expectTypeOf<entry.TransactionJson<'SomethingNew'>>().toBeUnknown();
});
