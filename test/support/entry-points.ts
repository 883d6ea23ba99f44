/**
 * The project's commands as the tests run them (`node <file>`: processes.ts), each where the
 * npm script of the same name points (package.json), so that no test spells a path of its own.
 * Free of vitest: bench/ may load it under plain Node.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');

/** `npm run dev`'s consumer half, and the image's default command: the consumer. */
export const CONSUMER_MAIN = join(ROOT, 'src/main.ts');
/** `npm run dev`: the simulator and the consumer in one process. */
export const DEV_SCRIPT = join(ROOT, 'scripts/dev.ts');
/** `npm run reconcile`. */
export const RECONCILE_SCRIPT = join(ROOT, 'scripts/reconcile.ts');
/** `npm run replay`. */
export const REPLAY_SCRIPT = join(ROOT, 'scripts/replay.ts');
/** The tracing start-up the npm scripts and the image load with `--import` (src/tracing). */
export const TRACING_REGISTER = join(ROOT, 'src/tracing/register.ts');

/**
 * The node flags of the npm script `name` (package.json), as the tests run it: the flags
 * between `node` and the script, each compiled file (`./dist/src/...js`) mapped to its source,
 * which the tests run. So a flag added to `npm start` (the tracing start-up, a memory limit)
 * reaches the processes the tests start as `npm start`.
 */
export function npmScriptNodeFlags(name: string): string[] {
  const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const command = packageJson.scripts[name];
  if (command === undefined) throw new Error(`package.json has no script ${name}`);
  const words = command.split(/\s+/);
  const flags = words.slice(words.indexOf('node') + 1, -1);
  return flags.map((flag) => {
    const compiled = /^(?:\.\/)?dist\/(.+)\.js$/.exec(flag);
    if (compiled === null) return flag.startsWith('./') ? join(ROOT, flag) : flag;
    return join(ROOT, `${compiled[1]}.ts`);
  });
}
