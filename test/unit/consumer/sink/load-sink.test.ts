/**
 * How SINK_MODULE finds the status sink and reads its settings, as IMPORTER_MODULE does an
 * importer's: by name from src/sinks/, by path from the project's root, every problem named,
 * and the sink's settings in the one configuration report of readSetup.
 */
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { coreVariableNames } from '../../../../src/consumer/config.ts';
import { PROJECT_ROOT } from '../../../../src/consumer/modules/module-folder.ts';
import { readSetup } from '../../../../src/consumer/setup.ts';
import { readSink, sinkNames } from '../../../../src/consumer/sink/load-sink.ts';
import { createModuleFiles } from '../../../support/module-files.ts';

const modules = createModuleFiles('load-sink-', {
  path: join(PROJECT_ROOT, 'src/consumer/sink/index.ts'),
  define: 'defineStatusSink',
});
const { dir } = modules;
const coreVariables = coreVariableNames();
const logger = pino({ level: 'silent' });
const DELIVERS = '() => ({ deliver: async () => {} })';

const read = (env: Record<string, string>) => readSink(env, { coreVariables });

describe('readSink', () => {
  it('is the journal when SINK_MODULE is unset, in ./data/status-journal.jsonl', async () => {
    const loaded = await read({});
    if (!('sink' in loaded)) throw new Error(loaded.problems.join('\n'));
    expect(loaded.sink.name).toBe('journal');
    expect(loaded.sink.spec).toBe('journal');
    expect(loaded.sink.file).toBe(join(PROJECT_ROOT, 'src/sinks/journal.ts'));
    expect(loaded.sink.variables).toEqual(['SINK_JOURNAL_FILE']);
    expect(loaded.sink.describe()).toContain(resolve('data/status-journal.jsonl'));
    const journal = join(dir, 'default', 'journal.jsonl');
    const withFile = await read({ SINK_JOURNAL_FILE: journal });
    if (!('sink' in withFile)) throw new Error(withFile.problems.join('\n'));
    const sink = await withFile.sink.create({ logger });
    expect(typeof sink.deliver).toBe('function');
    await sink.close?.();
  });

  it('finds a name in src/sinks/ and a path from the project root, whatever the cwd', async () => {
    expect(sinkNames()).toEqual(expect.arrayContaining(['erp-http', 'journal']));
    const settings = { SINK_ERP_URL: 'http://erp.test', SINK_ERP_TOKEN: 't' };
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      for (const spec of ['erp-http', './src/sinks/erp-http.ts', 'src/sinks/erp-http']) {
        const loaded = await read({ SINK_MODULE: spec, ...settings });
        if (!('sink' in loaded)) throw new Error(loaded.problems.join('\n'));
        expect(loaded.sink.file).toBe(join(PROJECT_ROOT, 'src/sinks/erp-http.ts'));
        expect(loaded.sink.name).toBe('erp-http');
        expect(loaded.sink.variables).toEqual(['SINK_ERP_URL', 'SINK_ERP_TOKEN']);
        expect(loaded.sink.describe()).toBe(
          'status changes are posted to the ERP at http://erp.test/status-changes',
        );
      }
    } finally {
      process.chdir(cwd);
    }
    const own = modules.definition('own.ts', {
      settings: 'z.object({ OWN_SINK_TARGET: z.string() })',
      describe: "(s) => 'to ' + s.OWN_SINK_TARGET",
      create: "({ logger }) => ({ deliver: async () => { logger.info('delivered'); } })",
    });
    const loaded = await read({ SINK_MODULE: own, OWN_SINK_TARGET: 'there' });
    if (!('sink' in loaded)) throw new Error(loaded.problems.join('\n'));
    expect(loaded.sink.name).toBe('own');
    expect(loaded.sink.describe()).toBe('to there');
    const lines: Array<Record<string, unknown>> = [];
    const recording = pino(
      { level: 'info' },
      { write: (line: string) => lines.push(JSON.parse(line)) },
    );
    const sink = await loaded.sink.create({ logger: recording });
    await sink.deliver({} as never);
    expect(lines).toEqual([expect.objectContaining({ sink: 'own', msg: 'delivered' })]);
  });

  it('hides its secrets in what comes out of it: describe, errors, log lines', async () => {
    const echoing = modules.definition('echoing.ts', {
      name: 'echoing',
      settings: 'z.object({ ECHO_URL: z.string(), ECHO_SINK_TOKEN: z.string() })',
      describe: "(s) => 'to ' + s.ECHO_URL",
      create: `({ settings: s, logger }) => ({
        async deliver() {
          logger.info({ header: 'Bearer ' + s.ECHO_SINK_TOKEN }, 'posting');
          throw new Error('500: ' + btoa('Bearer ' + s.ECHO_SINK_TOKEN) + ' ' + s.ECHO_SINK_TOKEN.toUpperCase());
        },
      })`,
    });
    const loaded = await read({
      SINK_MODULE: echoing,
      ECHO_URL: 'https://sink-user:Sink-Pw-5520@erp.test/',
      ECHO_SINK_TOKEN: 'sink-Tok/3321+q',
    });
    if (!('sink' in loaded)) throw new Error(loaded.problems.join('\n'));
    expect(loaded.sink.describe()).toBe('to https://[redacted]@erp.test/');
    const lines: string[] = [];
    const recording = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const sink = await loaded.sink.create({ logger: recording });
    await expect(sink.deliver({} as never)).rejects.toThrow(
      /^500: QmVhcmVyI\[redacted\] \[redacted\]$/,
    );
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      sink: 'echoing',
      header: 'Bearer [redacted]',
    });
  });

  it('passes deliverMany() through when the sink has one, its refusals and its errors redacted', async () => {
    const batching = modules.definition('batching.ts', {
      name: 'batching',
      settings: 'z.object({ BATCH_SINK_TOKEN: z.string() })',
      describe: "() => 'nowhere'",
      create: `({ settings: s }) => ({
        async deliver() {},
        async deliverMany(notices, options) {
          if (!(options?.signal instanceof AbortSignal)) throw new Error('no signal');
          if (notices.length === 0) throw new Error('empty: ' + s.BATCH_SINK_TOKEN);
          return notices.map((n, i) =>
            i === 1
              ? { status: 'rejected', reason: new Error('refused with ' + s.BATCH_SINK_TOKEN) }
              : { status: 'fulfilled' },
          );
        },
      })`,
    });
    const loaded = await read({ SINK_MODULE: batching, BATCH_SINK_TOKEN: 'batch-Tok-8812' });
    if (!('sink' in loaded)) throw new Error(loaded.problems.join('\n'));
    const sink = await loaded.sink.create({ logger });
    const signal = new AbortController().signal;
    const outcomes = await sink.deliverMany?.([{}, {}, {}] as never, { signal });
    expect(outcomes?.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const refused = outcomes?.[1];
    expect(refused?.status === 'rejected' && (refused.reason as Error).message).toBe(
      'refused with [redacted]',
    );
    await expect(sink.deliverMany?.([], { signal })).rejects.toThrow(/^empty: \[redacted\]$/);
    // A sink without one is used without one: the consumer calls deliver().
    const plain = await read({
      SINK_MODULE: modules.definition('single.ts', {
        settings: 'z.object({})',
        describe: "() => 'nowhere'",
        create: `() => ({ deliver: async () => {} })`,
      }),
    });
    if (!('sink' in plain)) throw new Error(plain.problems.join('\n'));
    expect((await plain.sink.create({ logger })).deliverMany).toBeUndefined();
    // One that is not a function is refused at creation.
    const wrong = await read({
      SINK_MODULE: modules.definition('wrong-many.ts', {
        name: 'wrong-many',
        settings: 'z.object({})',
        describe: "() => 'nowhere'",
        create: `() => ({ deliver: async () => {}, deliverMany: 'yes' }) as never`,
      }),
    });
    if (!('sink' in wrong)) throw new Error(wrong.problems.join('\n'));
    await expect(wrong.sink.create({ logger })).rejects.toThrow(
      /sink wrong-many .*deliverMany is not a function/,
    );
  });

  it("hands a loaded sink the delivery's signal, through the redaction that wraps it", async () => {
    const file = modules.definition('signalled.ts', {
      settings: 'z.object({})',
      describe: "() => 'nowhere'",
      create: `() => ({
        deliver: async (_notice, options) => {
          if (!(options?.signal instanceof AbortSignal)) throw new Error('no signal');
          if (options.signal.aborted) throw new Error('aborted');
        },
      })`,
    });
    const loaded = await read({ SINK_MODULE: file });
    if (!('sink' in loaded)) throw new Error(loaded.problems.join('\n'));
    const sink = await loaded.sink.create({ logger: pino({ level: 'silent' }) });
    const controller = new AbortController();
    await expect(sink.deliver({} as never, { signal: controller.signal })).resolves.toBeUndefined();
    controller.abort();
    await expect(sink.deliver({} as never, { signal: controller.signal })).rejects.toThrow(
      'aborted',
    );
  });

  it('refuses a module whose default export is not made with defineStatusSink, naming SINK_MODULE', async () => {
    const plain = modules.write('plain.ts', 'export function deliver() {}');
    expect(await read({ SINK_MODULE: plain })).toEqual({
      problems: [
        expect.stringMatching(
          /^SINK_MODULE .*plain\.ts: .*has no default export made with defineStatusSink\(/,
        ),
      ],
    });
    const missing = await read({ SINK_MODULE: 'my-erp' });
    expect(missing).toEqual({
      problems: [
        expect.stringMatching(
          /^SINK_MODULE my-erp: no module at .*src\/sinks\/my-erp\.ts; a name is a file of src\/sinks\/ \(there: .*erp-http, journal/,
        ),
      ],
    });
    const broken = modules.write('broken.ts', 'throw new Error("boom at load");');
    expect(await read({ SINK_MODULE: broken })).toEqual({
      problems: [expect.stringMatching(/^SINK_MODULE .*could not be loaded: boom at load$/)],
    });
    const empty = modules.definition('empty.ts', {
      name: 'empty',
      settings: 'z.object({})',
      describe: "() => 'nowhere'",
      create: '() => ({}) as never',
    });
    const emptyLoaded = await read({ SINK_MODULE: empty });
    if (!('sink' in emptyLoaded)) throw new Error(emptyLoaded.problems.join('\n'));
    await expect(emptyLoaded.sink.create({ logger })).rejects.toThrow(
      /sink empty .*create\(\) did not return an object with a deliver\(\) method/,
    );
  });

  it('names every bad setting, without echoing a secret', async () => {
    expect(await read({ SINK_MODULE: 'erp-http', SINK_ERP_URL: 'ftp://erp.test' })).toEqual({
      problems: ['SINK_ERP_URL: must be an http(s) URL (sink erp-http) (got "ftp://erp.test")'],
    });
    expect(await read({ SINK_MODULE: 'erp-http' })).toEqual({
      problems: ['SINK_ERP_URL is required (sink erp-http)'],
    });
    const secret = modules.definition('secret.ts', {
      name: 'secret',
      settings: 'z.object({ SINK_API_KEY: z.string().min(40) })',
      describe: "() => 'nowhere'",
      create: DELIVERS,
    });
    const problems = await read({ SINK_MODULE: secret, SINK_API_KEY: 'hunter2' });
    expect(JSON.stringify(problems)).toContain('SINK_API_KEY');
    expect(JSON.stringify(problems)).not.toContain('hunter2');
  });

  it('refuses a setting that is a variable of the consumer itself', async () => {
    const greedy = modules.definition('greedy.ts', {
      name: 'greedy',
      settings: 'z.object({ API_TOKEN: z.string(), SINK_MODULE: z.string() })',
      describe: "() => 'nowhere'",
      create: DELIVERS,
    });
    expect(await read({ SINK_MODULE: greedy, API_TOKEN: 't' })).toEqual({
      problems: [
        expect.stringMatching(/^sink greedy declares API_TOKEN, a variable of the consumer itself/),
        expect.stringMatching(/^sink greedy declares SINK_MODULE, a variable/),
      ],
    });
  });
});

describe('readSetup', () => {
  const minimal = {
    WEBHOOK_SECRETS: 'whsec_a-long-enough-signing-secret',
    API_BASE_URL: 'http://127.0.0.1:9',
    API_TOKEN: 'api-token',
  };

  it('has the sink beside the importer', async () => {
    const read = await readSetup(minimal);
    if (!('setup' in read)) throw new Error(read.error);
    expect(read.setup.sink.name).toBe('journal');
    expect(read.setup.config.sinkModule).toBeUndefined();
  });

  it('reports a bad sink setting in the one configuration report, with the core problems', async () => {
    const read = await readSetup({
      ...minimal,
      PORT: 'eighty',
      SINK_MODULE: 'erp-http',
      SINK_ERP_URL: 'not a url',
      SINK_ERP_TOKEN: 'sink-secret-token',
    });
    if (!('error' in read)) throw new Error('expected a configuration error');
    expect(read.error).toMatch(/^Invalid configuration:/);
    expect(read.error).toContain('PORT');
    expect(read.error).toContain(
      'SINK_ERP_URL: must be an http(s) URL (sink erp-http) (got "not a url")',
    );
    expect(read.error).not.toContain('sink-secret-token');
  });
});
