/**
 * `node --import <this file> ...`: prints a line for each OpenTelemetry SDK, exporter or
 * instrumentation module the process loads, by import or require, so that a test can tell
 * that a process without tracing loaded none of them (the API alone is allowed: the library
 * path calls it, and it is a no-op). Node's synchronous module hooks see both loaders
 * (https://nodejs.org/api/module.html#moduleregisterhooksoptions).
 */
import { registerHooks } from 'node:module';

const LOADED = 'opentelemetry module loaded:';
const SDK_MODULE = /\/node_modules\/@opentelemetry\/(sdk-|exporter-|instrumentation|otlp-)[^/]*\//;

const seen = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    const match = SDK_MODULE.exec(resolved.url);
    if (match !== null && !seen.has(match[0])) {
      seen.add(match[0]);
      process.stderr.write(`${LOADED} ${match[0]}\n`);
    }
    return resolved;
  },
});
