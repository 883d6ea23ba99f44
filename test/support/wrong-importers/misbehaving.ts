/**
 * Wrong importers, one mistake each, for the test that every case of the contract kit can fail
 * (test/integration/importer-kit/each-case-fails.test.ts): the example HTTP importer
 * (src/importers/erp-http.ts) with the mistake WRONG_IMPORTER_MODE names.
 *
 *   no-location             resolves with an empty location                 import.once
 *   transient-as-permanent  any failure becomes a PermanentImportError      import.transient
 *   ignores-signal          never passes the call's signal on               import.deadline
 *   accepts-refused         an ERP refusal resolves 'imported'              import.permanent
 *   one-location            one location for every message                  import.concurrent
 *   small-documents-only    refuses a core document over 10 MiB            import.large-document
 *   invoices-only           refuses any core document but an Invoice        import.document-types
 *   credit-notes-not-booked answers a credit note 'not_booked' (the invoice  import.document-types
 *                           dropped: the consumer would mark it delivered)
 */
import {
  defineImporter,
  type Importer,
  type ImportInput,
  PermanentImportError,
  z,
} from '../../../src/consumer/importer/index.ts';
import erpHttp, { createErpHttpImporter } from '../../../src/importers/erp-http.ts';

const MODES = [
  'no-location',
  'transient-as-permanent',
  'ignores-signal',
  'accepts-refused',
  'one-location',
  'small-documents-only',
  'invoices-only',
  'credit-notes-not-booked',
] as const;
export type Misbehaviour = (typeof MODES)[number];

export default defineImporter({
  name: 'misbehaving',
  settings: erpHttp.settings.extend({ WRONG_IMPORTER_MODE: z.enum(MODES) }),
  describe: (s) => `erp-http at ${s.ERP_BASE_URL}, except: ${s.WRONG_IMPORTER_MODE}`,
  create({ settings }): Importer {
    const erp = createErpHttpImporter(settings);
    const mode = settings.WRONG_IMPORTER_MODE;
    return {
      async import(input: ImportInput) {
        if (mode === 'small-documents-only' && input.coreDocument.size > 10 * 1024 * 1024) {
          throw new PermanentImportError('the document is too large');
        }
        const core = input.descriptor.documents?.find((d) => d.attachmentType === 'Core');
        if (mode === 'invoices-only' && core?.name !== 'Invoice') {
          throw new PermanentImportError(`a ${core?.name} is not an invoice`);
        }
        if (mode === 'credit-notes-not-booked' && core?.name === 'CreditNote') {
          return { status: 'not_booked', reason: 'credit notes are booked by hand' };
        }
        const signal = mode === 'ignores-signal' ? new AbortController().signal : input.signal;
        try {
          const result = await erp.import({ ...input, signal });
          if (mode === 'no-location') return { ...result, location: '' };
          if (mode === 'one-location') return { ...result, location: 'ERP' };
          return result;
        } catch (error) {
          if (mode === 'accepts-refused' && error instanceof PermanentImportError) {
            return { status: 'imported', location: 'REFUSED' };
          }
          if (mode === 'transient-as-permanent' && !(error instanceof PermanentImportError)) {
            throw new PermanentImportError(`the ERP failed: ${String(error)}`);
          }
          throw error;
        }
      },
    };
  },
});
