/**
 * What every process a test starts takes from the test run, before the variables the test
 * gives it: PATH, and Node's compile cache (NODE_COMPILE_CACHE, which vitest.config.ts sets for
 * the run). Nothing else: a test states every variable it relies on.
 *
 * The cache is on disk, so each process finds undici, zod, pino and the sources compiled by the
 * ones before it (V8 code cache, checked against each file's contents): a reconcile run that
 * stops at a configuration error starts in 0.6 s instead of 1.4 s, and the tests start many
 * processes. It changes nothing they do (https://nodejs.org/api/module.html#module-compile-cache).
 */
export function childEnv(): Record<string, string> {
  const cache = process.env.NODE_COMPILE_CACHE;
  return { PATH: process.env.PATH ?? '', ...(cache ? { NODE_COMPILE_CACHE: cache } : {}) };
}

/**
 * The environment of a user's shell, for the tests that run a guide's commands as a user does:
 * PATH, HOME (`home` where this run has none) and, when set, NODE_EXTRA_CA_CERTS (npm and Node
 * reach the registry through a proxy of their own CA on some machines: ENVIRONMENT.md). Nothing
 * else: what a guide sets, it sets itself.
 */
export function userShellEnv(home: string): Record<string, string> {
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? home,
    ...(ca ? { NODE_EXTRA_CA_CERTS: ca } : {}),
  };
}
