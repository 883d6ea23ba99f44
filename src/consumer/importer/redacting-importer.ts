/**
 * The importer a module creates, as the consumer uses it: every call goes to the module's own
 * importer, and what comes back passes the module's redaction (modules/module-redaction.ts)
 * before the worker sends, stores or logs it. An ERP that echoes the request's Authorization
 * header in a 422 therefore cannot put the token in the mark-as-failed reason the service
 * receives, nor a 401 echoing it in importError or the log; and the location an ERP answers is
 * stored printable and bounded, as its errors are.
 *
 * What passes: the result's location (stored as importLocation, logged, handed back to
 * forget()), and what import() and forget() throw, as a copy that keeps the error's class (a
 * PermanentImportError stays one, so the message is still marked as failed).
 */
import type { ModuleRedaction } from '../modules/module-redaction.ts';
import type { Importer, ImportResult } from './importer.ts';

export function redactingImporter(importer: Importer, redaction: ModuleRedaction): Importer {
  const forget = importer.forget;
  return {
    async import(input) {
      const result = await redaction.guard(() => importer.import(input));
      return cleanResult(result, redaction);
    },
    ...(forget === undefined
      ? {}
      : { forget: (message) => redaction.guard(() => forget.call(importer, message)) }),
  };
}

/**
 * The result with its location (or, for a message not booked, its reason) stored-clean. A
 * result that is not what the contract says (no such text, not a string) is left as it is, for
 * the worker and the kit to name the fault.
 */
function cleanResult(result: ImportResult, redaction: ModuleRedaction): ImportResult {
  if (result?.status === 'not_booked') {
    if (typeof result.reason !== 'string') return result;
    return { ...result, reason: redaction.stored(result.reason) };
  }
  if (typeof result?.location !== 'string') return result;
  return { ...result, location: redaction.stored(result.location) };
}
