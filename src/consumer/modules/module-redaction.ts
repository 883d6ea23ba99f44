/**
 * The one redaction step every fork module's text passes before the consumer sends, stores or
 * logs it (SECURITY.md, "No credential leaves through a module"). Made once per module from
 * its settings (module-secrets.ts: the secrets it declares or its names reveal, and URL
 * userinfo), and applied where the module is loaded (importer/load-importer.ts,
 * sink/load-sink.ts) to everything that comes out of it:
 *
 *   describe()        its line for the start-up log and the dev banner
 *   errors it throws  message, reason, stack, fields and wrapped causes: what becomes a
 *                     mark-as-failed reason, importError, a notice's lastError, a log line
 *   an import result  its location
 *   its log lines     through the logger it is given
 *
 * What the consumer stores of it (an error's message, a reason, a location) is also made
 * printable and bounded, as another system's text is (text/error-text.ts): a module's text is
 * its ERP's text more often than not.
 */
import type { Logger } from 'pino';
import { printableText, REMOTE_TEXT_LIMIT } from '../text/error-text.ts';
import { createTextRedactor } from '../text/redact-secrets.ts';
import { redactValue } from './redact-value.ts';
import { redactingLogger } from './redacting-logger.ts';

export interface ModuleRedaction {
  /** `text` with the module's secrets and any URL userinfo hidden. */
  text(text: string): string;
  /** text(), then printable and at most REMOTE_TEXT_LIMIT characters: what is stored or sent. */
  stored(text: string): string;
  /** A redacted copy of what the module threw (redact-value.ts); its message as stored(). */
  error(error: unknown): unknown;
  /** The module's logger: every line redacted. */
  logger(logger: Logger): Logger;
  /** Runs a call of the module; what it throws is thrown as error() of it. */
  guard<T>(call: () => T | Promise<T>): Promise<T>;
}

/** The redaction of a module whose secret values are `secrets` (module-secrets.ts). */
export function createModuleRedaction(secrets: Iterable<string>): ModuleRedaction {
  const text = createTextRedactor(secrets);
  // Redacted before it is cut, so a bound never leaves half a secret behind; and after, for a
  // secret the removed control characters joined up, or one the cut left a first part of.
  const stored = (value: string) => {
    const shown = text(printableText(text(value), REMOTE_TEXT_LIMIT));
    return shown.length <= REMOTE_TEXT_LIMIT ? shown : printableText(shown, REMOTE_TEXT_LIMIT);
  };
  const error = (thrown: unknown) => redactValue(thrown, { text, message: stored });
  const logged = (value: unknown) => redactValue(value, { text, message: text });
  return {
    text,
    stored,
    error,
    logger: (logger) => redactingLogger(logger, logged),
    async guard(call) {
      try {
        return await call();
      } catch (thrown) {
        throw error(thrown);
      }
    },
  };
}
