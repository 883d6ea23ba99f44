/**
 * The status sink's contract (src/sink-kit/) for the two bundled sinks, each loaded as
 * SINK_MODULE loads it, with the consumer and the simulator running for real:
 *   journal   the target is its file; an outage is a refusal in front of it (a disk that
 *             refuses writes cannot be made here as root), so what is checked is that nothing
 *             the consumer could not hand over is lost or repeated in the file;
 *   erp-http  the target is the ERP stand-in; an outage is its 503 on POST /status-changes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { coreVariableNames } from '../../../../src/consumer/config.ts';
import {
  readSink,
  type StatusChangeNotice,
  type StatusSink,
} from '../../../../src/consumer/sink/index.ts';
import { describeSinkContract } from '../../../../src/sink-kit/index.ts';
import { type ErpStandin, startErpStandin } from '../../../support/erp-standin.ts';

const logger = pino({ level: 'silent' });

async function loadSink(env: Record<string, string>): Promise<StatusSink> {
  const read = await readSink(env, { coreVariables: coreVariableNames() });
  if ('problems' in read) throw new Error(read.problems.join('; '));
  return read.sink.create({ logger });
}

const dir = mkdtempSync(join(tmpdir(), 'sink-contract-'));
const journal = join(dir, 'status-journal.jsonl');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let journalDown = false;

describeSinkContract({
  name: 'journal',
  async createSink() {
    const sink = await loadSink({ SINK_MODULE: 'journal', SINK_JOURNAL_FILE: journal });
    const refuseIfDown = () => {
      if (journalDown) throw new Error('the journal refuses writes (outage)');
    };
    return {
      async deliver(notice) {
        refuseIfDown();
        await sink.deliver(notice);
      },
      // The journal's own batch call, as the consumer makes it (the kit's sink.batch case too).
      async deliverMany(notices, options) {
        refuseIfDown();
        const many = sink.deliverMany;
        if (many === undefined) throw new Error('the journal has no deliverMany()');
        return many.call(sink, notices, options);
      },
      close: () => sink.close?.() ?? Promise.resolve(),
    };
  },
  target: {
    async received() {
      let text = '';
      try {
        text = readFileSync(journal, 'utf8');
      } catch {
        return [];
      }
      return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as StatusChangeNotice);
    },
    outage() {
      journalDown = true;
    },
    recover() {
      journalDown = false;
    },
  },
});

const TOKEN = 'sink-contract-token-7c2e';
let erp: ErpStandin;
beforeAll(async () => {
  erp = await startErpStandin({ token: TOKEN });
});
afterAll(() => erp.close());

// Named as SINK_MODULE names it: the kit loads it, its settings known once the stand-in runs.
describeSinkContract({
  sink: 'erp-http',
  env: () => ({ SINK_ERP_URL: erp.url, SINK_ERP_TOKEN: TOKEN }),
  target: {
    received: async () =>
      erp.statusChanges().map((change) => change.notice as unknown as StatusChangeNotice),
    outage() {
      erp.fault({ mode: '503', match: 'POST /status-changes', count: 1_000_000 });
    },
    recover() {
      erp.clearFaults();
    },
  },
});
