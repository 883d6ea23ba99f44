/**
 * A contract kit's cases as vitest tests (describeImporterContract, describeSinkContract): a
 * `describe` whose beforeAll opens the kit's session, with one `it` per case named by its id.
 * A case that fails throws its report, evidence included; a case that cannot be checked is
 * skipped with the reason.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { formatCheck } from './report.ts';
import type { CaseSession } from './run-case.ts';

/** A value, or a function giving it when the kit starts (after the file's own beforeAll). */
export type Deferred<T> = T | (() => T);

export function resolveDeferred<T>(value: Deferred<T>): T {
  return typeof value === 'function' ? (value as () => T)() : value;
}

/** A kit's options whose `env` and `target` may be deferred (the helpers' options). */
export type WithDeferred<Options extends { env?: unknown; target?: unknown }> = Omit<
  Options,
  'env' | 'target'
> & {
  /** The kit's `env`, or a function giving it (a stand-in's port). @default {} */
  env?: Deferred<NonNullable<Options['env']>>;
  /** The kit's `target` controller, or a function giving it. @default none */
  target?: Deferred<NonNullable<Options['target']>>;
};

/** The kit's options, their deferred `env` and `target` called: in the describe's beforeAll. */
export function resolveOptions<Options extends { env?: unknown; target?: unknown }>(
  options: WithDeferred<Options>,
): Options {
  const { env, target, ...rest } = options;
  return {
    ...rest,
    ...(env === undefined ? {} : { env: resolveDeferred(env) }),
    ...(target === undefined ? {} : { target: resolveDeferred(target) }),
  } as unknown as Options;
}

export interface CaseSuite {
  title: string;
  /** Opens the session, in the describe's beforeAll. */
  start(): Promise<CaseSession>;
  /** The case ids, in report order. */
  ids: readonly string[];
  /** vitest's bound of one case, after the kit's own. @default vitest's testTimeout */
  caseTimeoutMs?: number;
  /** The error a failed case throws, its report as the message (ImporterContractError, ...). */
  failure(report: string): Error;
  /** Said when the session did not open: `the importer kit did not start`. */
  notStarted: string;
}

export function describeCases(suite: CaseSuite): void {
  describe(suite.title, () => {
    let session: CaseSession | undefined;
    beforeAll(async () => {
      session = await suite.start();
    }, 60_000);
    afterAll(async () => {
      await session?.close();
    });
    for (const id of suite.ids) {
      it(
        id,
        async (context) => {
          if (session === undefined) throw new Error(suite.notStarted);
          const report = await session.run(id);
          if (report.result === 'not checked') context.skip(report.evidence.join('; '));
          if (report.result === 'fail') throw suite.failure(`\n${formatCheck(report)}`);
        },
        suite.caseTimeoutMs,
      );
    }
  });
}
