import { describe, expect, it } from 'vitest';
import type { DrainResult } from '../../../bench/drain.ts';
import type { IngressResult } from '../../../bench/ingress.ts';
import type { ReconcileResult } from '../../../bench/reconcile.ts';
import { allWorkDone, createTargets, type TargetInputs } from '../../../bench/targets.ts';

// Results of a run that did everything asked, fast enough for every target; each test breaks
// one thing.
const MIB = 1024 * 1024;

function ingress(name: string, overrides: Partial<IngressResult> = {}): IngressResult {
  return {
    name,
    description: name,
    requestsPerSecond: 9000,
    latencyP50Ms: 1,
    latencyP99Ms: 5,
    latencyP999Ms: 9,
    responses2xx: 90_000,
    non2xx: 0,
    errors: 0,
    statusCodes: { 204: 90_000 },
    clientCpu: 0.5,
    durationSeconds: 10,
    warmupNon2xx: 0,
    serverCpu: 1,
    serverPeakRssBytes: 100 * MIB,
    ratioToExpress: 0.9,
    builtDuringRun: 0,
    ...(name >= 'c'
      ? { inbox: { rows: 90_050, acknowledged: 90_000, missing: 0, unanswered: 50, ok: true } }
      : {}),
    ...overrides,
  };
}

function drain(overrides: Partial<DrainResult> = {}): DrainResult {
  return {
    store: 'sqlite',
    consumers: 1,
    invoices: 5000,
    events: 15_000,
    inboxEmptySeconds: 3,
    seconds: 4,
    invoicesPerSecond: 1250,
    delivered: 5000,
    notices: 15_000,
    noticesPending: 0,
    noticesMissingFromJournal: 0,
    deadEvents: 0,
    consumerCpu: 1.2,
    providerCpu: 0.6,
    consumerCpuMsPerInvoice: 1.5,
    providerCpuMsPerInvoice: 0.9,
    consumerCpuMsPerInvoiceAtInboxEmpty: 1.2,
    consumerPeakRssBytes: 120 * MIB,
    ...overrides,
  };
}

function reconcile(overrides: Partial<ReconcileResult> = {}): ReconcileResult {
  return {
    messages: 10_000,
    seconds: 15,
    messagesPerSecond: 667,
    exitCode: 0,
    summary: 'reconcile: found=10000 imported=10000 acknowledged=10000',
    reconcileCpu: 1,
    providerCpu: 0.3,
    reconcileCpuMsPerMessage: 1.5,
    providerCpuMsPerMessage: 0.5,
    peakRssBytes: 110 * MIB,
    delivered: 10_000,
    ...overrides,
  };
}

function run(overrides: Partial<TargetInputs> = {}): TargetInputs {
  return {
    ingress: ['a bare', 'b express', 'c ingress', 'd with worker', 'e duplicates', 'g floor'].map(
      (n) =>
        ingress(n, {
          ...(n === 'b express' ? { ratioToExpress: 1 } : {}),
          ...(['a', 'b', 'g'].includes(n[0] as string) ? { reference: true as const } : {}),
        }),
    ),
    drain: drain(),
    reconcile: reconcile(),
    errors: [],
    smoke: false,
    ...overrides,
  };
}

const verdicts = (inputs: TargetInputs) =>
  Object.fromEntries(
    createTargets(inputs).map((t) => [`${t.name} (${t.issue})`, t.met ? 'yes' : (t.why ?? 'no')]),
  );

describe('createTargets', () => {
  it('meets every target of a full run that did all its work fast enough', () => {
    const targets = createTargets(run());
    expect(targets.length).toBeGreaterThan(10);
    expect(targets.filter((t) => !t.met)).toEqual([]);
    expect(allWorkDone(run())).toBe(true);
  });

  it('never meets the reconciliation targets of a run that exited 2 having delivered nothing', () => {
    // The run of issue 39: IMPORTER_MODULE missing, 0.4 s, exit 2; it used to read "yes".
    const failed = run({ reconcile: reconcile({ seconds: 0.4, exitCode: 2, delivered: 0 }) });
    const v = verdicts(failed);
    expect(v['reconcile 10,000 pending < 30 s (10)']).toBe('FAIL: exit 2, 0 of 10,000 delivered');
    expect(v['reconcile 10,000 pending < 20 s (39)']).toBe('FAIL: exit 2, 0 of 10,000 delivered');
    expect(v['consumer peak RSS < 150 MiB in every scenario (39)']).toBe(
      'FAIL: reconcile: exit 2, 0 of 10,000 delivered',
    );
    expect(allWorkDone(failed)).toBe(false);
  });

  it('labels a reconciliation figure scaled from a smaller run and never counts it', () => {
    const small = run({ reconcile: reconcile({ messages: 200, seconds: 0.4, delivered: 200 }) });
    const targets = createTargets(small).filter((t) => t.name.startsWith('reconcile'));
    expect(targets.map((t) => [t.measured, t.met, t.why])).toEqual([
      ['20.0 s (scaled from 200)', false, 'no: scaled from 200'],
      ['20.0 s (scaled from 200)', false, 'no: scaled from 200'],
    ]);
    // The work itself was done: the run passes, the target is just not checked.
    expect(allWorkDone(small)).toBe(true);
  });

  it('does not count a reconciliation that exited 0 with messages left', () => {
    const short = run({ reconcile: reconcile({ delivered: 9_999 }) });
    expect(verdicts(short)['reconcile 10,000 pending < 20 s (39)']).toBe(
      'FAIL: 9,999 of 10,000 delivered',
    );
    expect(allWorkDone(short)).toBe(false);
  });

  it.each<[string, Partial<DrainResult>, string]>([
    ['an invoice not delivered', { delivered: 4999 }, 'FAIL: 4,999 of 5,000 invoices delivered'],
    [
      'a notice left in the outbox',
      { noticesPending: 3 },
      'FAIL: 3 of 15,000 notices not delivered',
    ],
    [
      'a notice missing from the journal',
      { noticesMissingFromJournal: 1 },
      'FAIL: 1 notices missing from the journal',
    ],
    ['no notice at all', { notices: 0 }, 'FAIL: no status notice queued'],
    ['a dead event', { deadEvents: 2 }, 'FAIL: 2 events dead'],
    [
      'a run that stopped',
      { failure: 'a consumer exited with 1', delivered: 0 },
      'FAIL: a consumer exited with 1',
    ],
  ])('does not count a drain with %s', (_, broken, why) => {
    const inputs = run({ drain: drain(broken) });
    const v = verdicts(inputs);
    expect(v['drain to the last notice >= 350 invoices/s (39)']).toBe(why);
    expect(v["drain consumer CPU per invoice <= 2.5x the provider's (39)"]).toBe(why);
    expect(v['drain >= 1,000 invoices/s (10)']).toBe(why);
    expect(allWorkDone(inputs)).toBe(false);
  });

  it("holds the consumer's memory to the target, not the reference servers'", () => {
    const heavy = (name: string, mib: number) =>
      run({
        ingress: run().ingress.map((s) =>
          s.name === name ? { ...s, serverPeakRssBytes: mib * MIB } : s,
        ),
      });
    const rss = 'consumer peak RSS < 150 MiB in every scenario (39)';
    // The floor runs without the consumer's code; its memory says nothing of the consumer's.
    expect(verdicts(heavy('g floor', 300))[rss]).toBe('yes');
    expect(verdicts(heavy('b express', 300))[rss]).toBe('yes');
    expect(verdicts(heavy('e duplicates', 151))[rss]).toBe('no');
  });

  it('fails a run whose floor answered otherwise than 2xx', () => {
    const lost = run({
      ingress: run().ingress.map((s) => (s.name === 'g floor' ? { ...s, non2xx: 4 } : s)),
    });
    expect(allWorkDone(lost)).toBe(false);
  });

  it("checks the drain's CPU against the provider's in the same run", () => {
    const v = verdicts(run({ drain: drain({ consumerCpuMsPerInvoice: 2.3 }) }));
    expect(v["drain consumer CPU per invoice <= 2.5x the provider's (39)"]).toBe('no');
    const t = createTargets(run()).find((x) => x.name.startsWith('drain consumer CPU'));
    expect(t?.measured).toBe('1.50 / 0.90 ms = 1.7x');
  });

  it('fails a PostgreSQL drain that did not finish, though it has no target of its own', () => {
    const inputs = run({ postgresDrain: drain({ store: 'postgres', delivered: 10 }) });
    expect(allWorkDone(inputs)).toBe(false);
    expect(verdicts(inputs)['consumer peak RSS < 150 MiB in every scenario (39)']).toBe(
      'FAIL: drain postgres: 10 of 5,000 invoices delivered',
    );
  });

  it('does not count an ingress ratio when the scenario or the express baseline failed', () => {
    const failed = run({
      ingress: run().ingress.map((s) =>
        s.name.startsWith('c') ? { ...s, non2xx: 12, ratioToExpress: 2 } : s,
      ),
    });
    expect(verdicts(failed)['(c) ingress >= 0.5 of (b) (39)']).toBe('FAIL: 12 non-2xx');
    expect(allWorkDone(failed)).toBe(false);

    const baseline = run({
      ingress: run().ingress.map((s) => (s.name.startsWith('b') ? { ...s, errors: 3 } : s)),
    });
    expect(verdicts(baseline)['(d) with worker >= 0.4 of (b) (39)']).toBe(
      'FAIL: (b) 3 request errors',
    );
  });

  it('does not count the worker scenario when its backlog was not handled', () => {
    const stuck = run({
      ingress: run().ingress.map((s) =>
        s.name.startsWith('d') ? { ...s, backlogLeft: 40, deadEvents: 0 } : s,
      ),
    });
    expect(verdicts(stuck)['(d) with worker >= 0.4 of (b) (39)']).toBe('FAIL: 40 events left due');
  });

  it('does not count an ingress run that lost an acknowledged event', () => {
    const lost = ingress('c ingress', {
      inbox: { rows: 10, acknowledged: 11, missing: 1, unanswered: 0, ok: false },
    });
    const inputs = run({ ingress: [ingress('b express'), lost] });
    expect(verdicts(inputs)['(c) p99 < 20 ms (10)']).toBe(
      'FAIL: 1 acknowledged events missing from the inbox',
    );
  });

  it('names a part that threw and fails the run', () => {
    const message =
      'the consumer exited before listening:\nInvalid configuration:\n  - IMPORTER_MODULE';
    const { reconcile: _, ...others } = run();
    const inputs = { ...others, errors: [{ part: 'reconcile', message }] };
    const v = verdicts(inputs);
    expect(v['reconcile: did not run (0)']).toBe(
      'FAIL: the consumer exited before listening: Invalid configuration: - IMPORTER_MODULE',
    );
    // Its peak is not among the others: "every scenario" is not known.
    expect(v['consumer peak RSS < 150 MiB in every scenario (39)']).toBe(
      'FAIL: reconcile did not run',
    );
    expect(allWorkDone(inputs)).toBe(false);
  });

  it('checks no target in a smoke run, but still fails one that did less than asked', () => {
    const smoke = run({ smoke: true });
    expect(createTargets(smoke).every((t) => !t.met && t.why === 'not checked: smoke run')).toBe(
      true,
    );
    expect(allWorkDone(smoke)).toBe(true);
    const failed = run({ smoke: true, reconcile: reconcile({ exitCode: 2, delivered: 0 }) });
    expect(verdicts(failed)['reconcile 10,000 pending < 20 s (39)']).toBe(
      'FAIL: exit 2, 0 of 10,000 delivered',
    );
    expect(allWorkDone(failed)).toBe(false);
  });
});
