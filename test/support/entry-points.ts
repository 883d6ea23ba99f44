/**
 * The project's commands as the tests run them (`node <file>`: processes.ts), each where the
 * npm script of the same name points (package.json), so that no test spells a path of its own.
 * Free of vitest: bench/ may load it under plain Node.
 */
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');

/** `npm run dev`'s consumer half, and the image's default command: the consumer. */
export const CONSUMER_MAIN = join(ROOT, 'src/main.ts');
/** `npm run reconcile`. */
export const RECONCILE_SCRIPT = join(ROOT, 'scripts/reconcile.ts');
/** `npm run replay`. */
export const REPLAY_SCRIPT = join(ROOT, 'scripts/replay.ts');
