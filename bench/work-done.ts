/**
 * Whether a scenario did the whole work asked of it. A figure from a run that failed, or did
 * less than asked, measures something else (a reconciliation that exits at once is fast), so no
 * target is met by it and the run fails (report.ts). Each check answers undefined when the work
 * was done, else why not, as the report prints it: "FAIL: exit 2, 0 of 10,000 delivered".
 */
import type { DrainResult } from './drain.ts';
import { integer } from './format.ts';
import type { HistoryResult } from './history.ts';
import type { IngressResult } from './ingress.ts';
import type { ReconcileResult } from './reconcile.ts';

export function ingressShortfall(s: IngressResult): string | undefined {
  const problems: string[] = [];
  if (s.responses2xx === 0) problems.push('no request answered 2xx');
  if (s.non2xx + s.warmupNon2xx > 0) problems.push(`${integer(s.non2xx + s.warmupNon2xx)} non-2xx`);
  if (s.errors > 0) problems.push(`${integer(s.errors)} request errors`);
  if (s.inbox !== undefined && s.inbox.missing > 0) {
    problems.push(`${integer(s.inbox.missing)} acknowledged events missing from the inbox`);
  }
  if (s.inbox !== undefined && !s.inbox.ok && s.inbox.missing === 0) {
    problems.push(`${integer(s.inbox.unanswered)} inbox rows nobody was answered for`);
  }
  if ((s.backlogLeft ?? 0) > 0) problems.push(`${integer(s.backlogLeft ?? 0)} events left due`);
  if ((s.deadEvents ?? 0) > 0) problems.push(`${integer(s.deadEvents ?? 0)} events dead`);
  return fail(problems);
}

export function drainShortfall(d: DrainResult): string | undefined {
  // A stopped run says why and how far it got.
  if (d.failure !== undefined) return fail([d.failure]);
  const problems: string[] = [];
  if (d.delivered < d.invoices) {
    problems.push(`${integer(d.delivered)} of ${integer(d.invoices)} invoices delivered`);
  }
  if (d.deadEvents > 0) problems.push(`${integer(d.deadEvents)} events dead`);
  // Every invoice changes status, so a drain that queued no notice did not run the sink.
  if (d.notices === 0 && d.invoices > 0) problems.push('no status notice queued');
  if (d.noticesPending > 0) {
    problems.push(`${integer(d.noticesPending)} of ${integer(d.notices)} notices not delivered`);
  }
  if ((d.noticesMissingFromJournal ?? 0) > 0) {
    problems.push(`${integer(d.noticesMissingFromJournal ?? 0)} notices missing from the journal`);
  }
  return fail(problems);
}

export function reconcileShortfall(r: ReconcileResult): string | undefined {
  const problems: string[] = [];
  if (r.exitCode !== 0) problems.push(`exit ${r.exitCode ?? 'by a signal'}`);
  if (r.delivered < r.messages) {
    problems.push(`${integer(r.delivered)} of ${integer(r.messages)} delivered`);
  }
  return fail(problems);
}

export function historyShortfall(h: HistoryResult): string | undefined {
  const non204 = h.retention?.non204 ?? 0;
  return fail(non204 > 0 ? [`${integer(non204)} webhooks not 204 during retention`] : []);
}

function fail(problems: string[]): string | undefined {
  return problems.length === 0 ? undefined : `FAIL: ${problems.join(', ')}`;
}
