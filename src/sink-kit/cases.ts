/**
 * The sink kit's cases, the rules of docs/status-sink.md#guarantees as a sink meets them:
 *   sink.once-in-order   status events shuffled and repeated: each change once, in order
 *   sink.redelivered     the same notice handed over twice (a crash between the sink's answer
 *                        and the outbox's record): both calls resolve, the target holds it once
 *   sink.outage          the target down while changes happen: none lost once it is back
 *   sink.restart         the consumer restarted (a new sink instance) while the target is
 *                        down: the outbox resumes, each change once
 *   sink.batch           a sink with deliverMany(): one outcome per notice, in order, and a
 *                        batch handed over again (some of it new) resolves, each held once
 */
import { describeError } from '../check-runner/error-line.ts';
import {
  type CaseVerdict,
  createEvidence,
  type Evidence,
  notChecked,
} from '../check-runner/evidence.ts';
import { outcomeAt } from '../consumer/sink/batch-outcomes.ts';
import type { StatusChangeNotice, StatusSink } from '../consumer/sink/index.ts';
import {
  expectDelivered,
  expectRefusal,
  inSandbox,
  playHistory,
  type SinkKitCase,
  type SinkKitContext,
} from './case.ts';
import type { KitSandbox } from './sandbox.ts';

const GUARANTEES = 'docs/status-sink.md#guarantees';

const NEEDS_OUTAGE =
  'not checked: needs a target controller with outage() and recover() (describeSinkContract({ target }))';

export const onceInOrder: SinkKitCase = {
  id: 'sink.once-in-order',
  title: 'status events shuffled and repeated: the target holds each change once, in order',
  doc: GUARANTEES,
  async run(kit) {
    const e = createEvidence();
    return inSandbox(kit, await kit.instance(), async (sandbox) =>
      expectDelivered(kit, sandbox, e, await playHistory(sandbox, e, 3, 29)),
    );
  },
};

export const redelivered: SinkKitCase = {
  id: 'sink.redelivered',
  title:
    'a notice handed over again by a new process: deliver() resolves, the target holds it once',
  doc: GUARANTEES,
  async run(kit) {
    const e = createEvidence();
    const notice: StatusChangeNotice = {
      id: `kit-redelivered-${Date.now()}`,
      messageId: `kit-${Date.now()}`,
      transfer: 'inbound',
      kind: 'lifecycle',
      formerValue: 'none',
      newValue: 'paid',
      occurredAt: new Date().toISOString(),
      source: 'event',
      properties: { paidAmount: '1.00' },
      validationResults: null,
    };
    const instances: StatusSink[] = [];
    try {
      for (const [i, what] of ['an instance', 'a new instance (a new process)'].entries()) {
        const sink = await kit.instance();
        instances.push(sink);
        try {
          await sink.deliver(notice);
        } catch (error) {
          return notDelivered(e, i, describeError(error));
        }
        e.note(`notice ${notice.id} (${notice.kind} ${notice.newValue}) delivered by ${what}`);
      }
    } finally {
      for (const sink of instances) await sink.close?.();
    }
    if (kit.target?.received === undefined) {
      e.note('held once by the target: not checked (no target.received())');
      return e.verdict();
    }
    const held = (await kit.received()).filter((n) => n.id === notice.id).length;
    e.note(`the target holds it ${held === 1 ? 'once' : `${held} times`}`);
    e.expect(
      held === 1,
      'the target must hold a notice once, whatever the times it is handed over: its id is the idempotency key',
    );
    return e.verdict();
  },
};

export const batch: SinkKitCase = {
  id: 'sink.batch',
  title:
    'deliverMany(): one outcome per notice, in order; a batch handed over again by a new process resolves, each notice held once',
  doc: 'src/consumer/sink/README.md#deliver-many',
  async run(kit) {
    const first = await kit.instance();
    if (first.deliverMany === undefined) {
      await first.close?.();
      return notChecked(
        'not checked: the sink has no deliverMany() (optional: the consumer then calls deliver() for each notice)',
      );
    }
    const e = createEvidence();
    const stamp = Date.now();
    // Three streams' heads, as the consumer hands them: three messages, each its own kind.
    const kinds = ['delivery', 'taxReporting', 'lifecycle'] as const;
    const notices: StatusChangeNotice[] = kinds.map((kind, i) => ({
      id: `kit-batch-${stamp}-${i}`,
      messageId: `kit-batch-${stamp}-${i}`,
      transfer: 'inbound',
      kind,
      formerValue: null,
      newValue: kind === 'delivery' ? 'delivered' : kind === 'lifecycle' ? 'paid' : 'electronic',
      occurredAt: new Date().toISOString(),
      source: 'event',
      properties: null,
      validationResults: null,
    }));
    // An instance takes two; a new one (the consumer crashed before it recorded them) gets
    // those two again with a third, as its next claim would hand them.
    const rounds: [string, StatusChangeNotice[]][] = [
      ['an instance', notices.slice(0, 2)],
      ['a new instance (a new process)', notices],
    ];
    const instances: StatusSink[] = [first];
    try {
      for (const [i, [what, handed]] of rounds.entries()) {
        const sink = i === 0 ? first : await kit.instance();
        if (i > 0) instances.push(sink);
        const ids = handed.map((n) => n.id).join(', ');
        let outcomes: unknown;
        try {
          outcomes = await sink.deliverMany?.(handed, { signal: new AbortController().signal });
        } catch (error) {
          e.expect(
            false,
            `deliverMany() of ${what} threw for ${ids}: ${describeError(error)}; the consumer would hand ${i === 0 ? 'them' : 'the notices it took before'} over again and again`,
          );
          return e.verdict();
        }
        const count = Array.isArray(outcomes) ? `${outcomes.length} outcomes` : String(outcomes);
        e.note(`deliverMany() of ${what} for ${ids}: ${count}`);
        e.expect(
          Array.isArray(outcomes) && outcomes.length === handed.length,
          `deliverMany() must resolve with one outcome per notice, in the order handed (${handed.length}); the consumer counts a notice without one as not delivered`,
        );
        const refused = handed.filter((_, j) => outcomeAt(outcomes, j).status !== 'fulfilled');
        e.expect(
          refused.length === 0,
          `deliverMany() of ${what} did not answer fulfilled for ${refused.map((n) => n.id).join(', ')}${i === 0 ? '' : ' (a notice it took before, or a new one beside them)'}: the consumer would hand it over again and again, its stream held back for ever`,
        );
      }
    } finally {
      for (const sink of instances) await sink.close?.();
    }
    if (kit.target?.received === undefined) {
      e.note('held once by the target: not checked (no target.received())');
      return e.verdict();
    }
    const received = await kit.received();
    for (const notice of notices) {
      const held = received.filter((n) => n.id === notice.id).length;
      e.expect(
        held === 1,
        `the target holds ${notice.id} ${held} times: a notice must be held once, whatever the times it is handed over (its id is the idempotency key)`,
      );
    }
    e.note(`the target holds each of the ${notices.length} notices once`);
    return e.verdict();
  },
};

function notDelivered(e: Evidence, attempt: number, error: string) {
  e.expect(
    false,
    attempt === 0
      ? `deliver() threw for a new notice: ${error}`
      : `a new instance's deliver() threw for a notice an instance took before: ${error}; the consumer would hand it over again and again, its stream held back for ever`,
  );
  return e.verdict();
}

export const outage: SinkKitCase = {
  id: 'sink.outage',
  title: 'the target down while changes happen: deliver() throws, and none is lost once it is back',
  doc: GUARANTEES,
  run: (kit) =>
    throughOutage(kit, 7, {
      sink: () => kit.instance(),
      async meanwhile(e, _sandbox, recover) {
        await recover();
        e.note('the target back');
      },
    }),
};

export const restart: SinkKitCase = {
  id: 'sink.restart',
  title:
    'the consumer restarted while the target is down: a new instance resumes, each change once',
  doc: GUARANTEES,
  run(kit) {
    let swap: ReturnType<typeof swappable> | undefined;
    return throughOutage(kit, 42, {
      async sink() {
        swap = swappable(await kit.instance());
        return swap.sink;
      },
      async meanwhile(e, sandbox, recover) {
        await sandbox.stopConsumer();
        swap?.swap(await kit.instance());
        await recover();
        await sandbox.restartConsumer();
        e.note(
          'the consumer stopped with notices waiting; started again with a new sink instance, the target back',
        );
      },
    });
  },
};

/**
 * A case through an outage of the target: two invoices' history played (shuffled by `seed`)
 * while it is down, the sink expected to refuse; then `meanwhile`, which ends the outage with
 * `recover`; then every change expected at the target, once and in order. Not checked without
 * a controller that can take the target down.
 */
async function throughOutage(
  kit: SinkKitContext,
  seed: number,
  steps: {
    sink(): Promise<StatusSink>;
    meanwhile(e: Evidence, sandbox: KitSandbox, recover: () => Promise<void>): Promise<void>;
  },
): Promise<CaseVerdict> {
  const { target } = kit;
  if (target?.outage === undefined || target.recover === undefined) {
    return notChecked(NEEDS_OUTAGE);
  }
  const e = createEvidence();
  return inSandbox(kit, await steps.sink(), async (sandbox) => {
    await target.outage?.();
    const ids = await playHistory(sandbox, e, 2, seed);
    if (!(await expectRefusal(sandbox, e))) return e.verdict();
    await steps.meanwhile(e, sandbox, async () => {
      await target.recover?.();
    });
    return expectDelivered(kit, sandbox, e, ids);
  });
}

/** A sink whose instance can be swapped (a restart) while the consumer keeps one object. */
function swappable(first: StatusSink) {
  let current = first;
  const sink: StatusSink = {
    deliver: (notice, delivery) => current.deliver(notice, delivery),
    // A sink's instances are alike: deliverMany() when the first has one.
    ...(first.deliverMany === undefined
      ? {}
      : {
          deliverMany: (notices, delivery) =>
            current.deliverMany?.(notices, delivery) ?? Promise.reject(new Error('no deliverMany')),
        }),
    close: async () => current.close?.(),
  };
  return {
    sink,
    swap(next: StatusSink) {
      current = next;
    },
  };
}

/** Every case, in report order. */
export const SINK_KIT_CASES: readonly SinkKitCase[] = [
  onceInOrder,
  redelivered,
  outage,
  restart,
  batch,
];
