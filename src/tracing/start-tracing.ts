/**
 * Tracing at the entry points (docs/operating.md#tracing): started by register.ts, which
 * `npm start`, `npm run dev`, `npm run reconcile` and the image load with `--import` before the
 * application's first module, and stopped by the entry point's own shutdown so that the last
 * spans are exported before the process exits.
 *
 * This module imports no OpenTelemetry SDK module: when the standard variables do not ask for
 * tracing, nothing more is loaded, no loader hook is registered and the library path's
 * `@opentelemetry/api` calls stay no-ops. When they do, the SDK (sdk.ts) is imported
 * dynamically.
 */
import { register } from 'node:module';
import type { Env } from '../consumer/settings/reader.ts';
import { readTracingSettings } from './tracing-settings.ts';

/** What a started SDK needs at the end. */
export interface RunningTracing {
  /** Exports what is buffered and stops; resolves when done or given up. */
  shutdown(): Promise<void>;
}

let running: RunningTracing | undefined;

/**
 * Starts the SDK when `env` asks for tracing; throws ConfigError naming each bad
 * variable. Call once, before the application's modules are imported.
 */
export async function startTracing(env: Env): Promise<void> {
  const settings = readTracingSettings(env);
  if (!settings.enabled || running !== undefined) return;
  // Express and pg are CommonJS imported from ES modules: their instrumentations can only patch
  // them through this loader hook (https://github.com/open-telemetry/opentelemetry-js/blob/main/doc/esm-support.md),
  // registered programmatically as the hook's documentation allows. Only those two packages go
  // through it: every other module loads as it would without tracing (the hook would otherwise
  // wrap each of them, this project's TypeScript sources included). http and undici need no
  // hook (the first is patched on its shared prototypes, the second through diagnostics
  // channels).
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, {
    data: { include: ['express', 'pg', 'pg-pool'] },
  });
  const { startSdk } = await import('./sdk.ts');
  running = startSdk(settings);
}

/** Flushes and stops the SDK if one was started; a no-op otherwise. */
export async function stopTracing(): Promise<void> {
  const stopping = running;
  running = undefined;
  await stopping?.shutdown();
}
