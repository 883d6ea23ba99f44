/**
 * One import() call with its deadline (IMPORT_TIMEOUT_MS): its signal aborts then, or when the
 * claim is lost. The call is awaited to its end all the same (the caller keeps the claim
 * renewed meanwhile), so a second import can never start beside one still running; a call
 * that fails after its deadline is reported as an ImportTimeoutError.
 */
import type { Logger } from 'pino';
import type { ClaimGuard } from '../claims/held-claim.ts';
import {
  type Importer,
  type ImportInput,
  type ImportResult,
  ImportTimeoutError,
  PermanentImportError,
} from '../importer/index.ts';

export async function importWithDeadline(
  deps: { importer: Importer; logger: Logger; importTimeoutMs: number },
  input: Omit<ImportInput, 'signal'>,
  claim: ClaimGuard,
): Promise<ImportResult> {
  const { importer, logger, importTimeoutMs } = deps;
  const deadline = AbortSignal.timeout(importTimeoutMs);
  const late = () =>
    logger.warn(
      { messageId: input.messageId, importTimeoutMs },
      'import passed its deadline; its signal is aborted and the message stays claimed until it ends',
    );
  deadline.addEventListener('abort', late, { once: true });
  try {
    return await importer.import({ ...input, signal: AbortSignal.any([deadline, claim.signal]) });
  } catch (error) {
    if (deadline.aborted && !(error instanceof PermanentImportError)) {
      throw new ImportTimeoutError(input.messageId, importTimeoutMs, { cause: error });
    }
    throw error;
  } finally {
    deadline.removeEventListener('abort', late);
  }
}
