/**
 * The logger a fork module is given: the consumer's, with every line's message, arguments and
 * fields passed through the module's redaction first (redact-value.ts), and the same for the
 * loggers it makes with child(). A module that logs an ERP's answer, or an error whose request
 * config holds the Authorization header, writes no secret to the consumer's log.
 *
 * A proxy rather than a pino option: pino's hooks are set when the root logger is made, and
 * the module's logger is a child of the consumer's, which its entry point made already.
 */
import type { Logger } from 'pino';

const LEVELS: ReadonlySet<PropertyKey> = new Set([
  'trace',
  'debug',
  'info',
  'warn',
  'error',
  'fatal',
]);

/** `logger`, each of whose lines passes `redact` (a value redactor) before it is written. */
export function redactingLogger(logger: Logger, redact: (value: unknown) => unknown): Logger {
  return new Proxy(logger, {
    get(target, key) {
      if (LEVELS.has(key)) {
        const write = Reflect.get(target, key, target) as (...args: unknown[]) => void;
        return (...args: unknown[]) => write.apply(target, args.map(redact));
      }
      if (key === 'child') {
        return (bindings: Record<string, unknown>, options?: object) =>
          redactingLogger(
            target.child(redact(bindings) as Record<string, unknown>, options),
            redact,
          );
      }
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    set: (target, key, value) => Reflect.set(target, key, value, target),
  });
}
