/**
 * Where `npm run dev` and `npm run provider` write their logs: readable, coloured lines
 * through pino-pretty on a terminal; JSON lines, one per event, when the output goes to a
 * file, a pipe or a log collector, and always in production (NODE_ENV=production), where the
 * lines are for machines. pino-pretty is a development dependency: an install without it
 * (`npm ci --omit=dev`) keeps JSON.
 */
import type { DestinationStream } from 'pino';

/** `undefined`: pino's default, JSON on stdout. */
export async function logDestination(options: {
  /** Whether stdout is a terminal a person reads. */
  terminal: boolean;
  /** NODE_ENV is production. */
  production: boolean;
  /** Where the pretty lines go. @default stdout */
  destination?: NodeJS.WritableStream;
  /** @default pino-pretty's own detection (terminal colours, NO_COLOR, FORCE_COLOR) */
  colorize?: boolean;
}): Promise<DestinationStream | undefined> {
  if (!options.terminal || options.production) return undefined;
  const pretty = await import('pino-pretty').catch(() => undefined);
  if (pretty === undefined) return undefined;
  return pretty.default({
    // Synchronous, so the lines keep their order with the banner and demo lines on stdout.
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    // One line per event: the demo's traffic stays readable as it scrolls by.
    singleLine: true,
    ...(options.destination === undefined ? {} : { destination: options.destination }),
    ...(options.colorize === undefined ? {} : { colorize: options.colorize }),
  });
}
