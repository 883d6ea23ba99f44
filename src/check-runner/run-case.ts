/**
 * How a contract kit runs one of its cases: found by id, bounded in time, and never throwing,
 * so that one broken case is a FAIL with its cause in the report, and the next case still runs.
 */
import type { CaseVerdict } from './evidence.ts';
import type { CheckReport } from './report.ts';

export interface KitCase<Context> {
  /** Stable: tests, CI and the report name it. */
  id: string;
  title: string;
  /** Where the rule is written, relative to the repository root. */
  doc: string;
  run(kit: Context): Promise<CaseVerdict>;
}

/** The case `id` of `cases`; a TypeError naming the kit (`importer kit`) and its cases if none. */
export function findCase<C extends { id: string }>(
  cases: readonly C[],
  id: string,
  kit: string,
): C {
  const found = cases.find((c) => c.id === id);
  if (found === undefined) {
    throw new TypeError(`no ${kit} case ${id}; the cases: ${cases.map((c) => c.id).join(', ')}`);
  }
  return found;
}

/**
 * One case, bounded by `limitMs`: the calls a case makes are bounded already, so the bound
 * here only catches a controller or simulator that never answers. `describeError` words what
 * broke a case off.
 */
export async function runCase<Context>(
  kase: KitCase<Context>,
  context: Context,
  limitMs: number,
  describeError: (error: unknown) => string,
): Promise<CheckReport> {
  const { id, title, doc } = kase;
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the case did not end within ${limitMs} ms`)),
      limitMs,
    );
  });
  try {
    const verdict = await Promise.race([kase.run(context), limit]);
    return { id, title, doc, ...verdict };
  } catch (error) {
    return {
      id,
      title,
      doc,
      result: 'fail',
      evidence: [`the case broke off: ${describeError(error)}`],
    };
  } finally {
    clearTimeout(timer);
  }
}

/** A kit's open session: its cases run one by one, then it closes. */
export interface CaseSession {
  run(id: string): Promise<CheckReport>;
  close(): Promise<void>;
}

/** Runs the cases `ids` in order and closes the session, whatever happens. */
export async function runEveryCase(
  session: CaseSession,
  ids: readonly string[],
): Promise<CheckReport[]> {
  try {
    const reports: CheckReport[] = [];
    for (const id of ids) reports.push(await session.run(id));
    return reports;
  } finally {
    await session.close();
  }
}
