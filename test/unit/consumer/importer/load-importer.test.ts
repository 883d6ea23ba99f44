/**
 * How IMPORTER_MODULE finds an importer and reads its settings: by name from src/importers/,
 * by path from the project's root (never the working directory), and with every problem named.
 */
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { coreVariableNames } from '../../../../src/consumer/config.ts';
import {
  type ImportInput,
  importerNames,
  PermanentImportError,
  readImporter,
} from '../../../../src/consumer/importer/index.ts';
import { PROJECT_ROOT } from '../../../../src/consumer/modules/module-folder.ts';
import { REMOTE_TEXT_LIMIT } from '../../../../src/consumer/text/error-text.ts';
import { createModuleFiles } from '../../../support/module-files.ts';

const ENTRY = join(PROJECT_ROOT, 'src/consumer/importer/index.ts');
const modules = createModuleFiles('load-importer-', {
  path: ENTRY,
  define: 'defineImporter',
});
const { dir } = modules;
const coreVariables = coreVariableNames();
const IMPORTS = "() => ({ import: async () => ({ status: 'imported', location: 'x' }) })";

const read = (env: Record<string, string>) => readImporter(env, { coreVariables });

describe('readImporter', () => {
  it('is the file importer when IMPORTER_MODULE is unset', async () => {
    const loaded = await read({});
    if (!('importer' in loaded)) throw new Error(loaded.problems.join('\n'));
    expect(loaded.importer.name).toBe('file');
    expect(loaded.importer.file).toBe(join(PROJECT_ROOT, 'src/importers/file.ts'));
    expect(loaded.importer.describe({ documentsDir: '/data/documents' })).toContain(
      '/data/documents/inbound/',
    );
  });

  it('finds a name in src/importers/ and a path from the project root, whatever the cwd', async () => {
    expect(importerNames()).toEqual(expect.arrayContaining(['erp-http', 'file']));
    const settings = { ERP_BASE_URL: 'http://erp.test', ERP_TOKEN: 't' };
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      for (const spec of ['erp-http', './src/importers/erp-http.ts', 'src/importers/erp-http']) {
        const loaded = await read({ IMPORTER_MODULE: spec, ...settings });
        if (!('importer' in loaded)) throw new Error(loaded.problems.join('\n'));
        expect(loaded.importer.file).toBe(join(PROJECT_ROOT, 'src/importers/erp-http.ts'));
        expect(loaded.importer.variables).toEqual(['ERP_BASE_URL', 'ERP_TOKEN', 'ERP_TIMEOUT_MS']);
      }
    } finally {
      process.chdir(cwd);
    }
  });

  it('names every bad setting, without echoing a secret', async () => {
    const loaded = await read({
      IMPORTER_MODULE: 'erp-http',
      ERP_BASE_URL: 'ftp://erp.test',
      ERP_TIMEOUT_MS: 'soon',
    });
    expect(loaded).toEqual({
      problems: [
        'ERP_BASE_URL: must be an http(s) URL (importer erp-http) (got "ftp://erp.test")',
        'ERP_TOKEN is required (importer erp-http)',
        'ERP_TIMEOUT_MS: must be an integer of milliseconds (importer erp-http) (got "soon")',
      ],
    });
    const secret = modules.definition('secret.ts', {
      name: 'secret',
      settings: 'z.object({ X_API_KEY: z.string().min(40) })',
      describe: "() => 'nowhere'",
      create: IMPORTS,
    });
    const problems = await read({ IMPORTER_MODULE: secret, X_API_KEY: 'hunter2' });
    expect(JSON.stringify(problems)).toContain('X_API_KEY');
    expect(JSON.stringify(problems)).not.toContain('hunter2');
  });

  it('hides the password of a URL in a bad setting, and a listed secret that is no setting', async () => {
    const problems = await read({
      IMPORTER_MODULE: 'erp-http',
      ERP_BASE_URL: 'ftp://erp-user:Pw-Of-The-Erp@erp.test',
      ERP_TOKEN: 't0ken-of-the-erp',
    });
    expect(problems).toEqual({
      problems: [
        'ERP_BASE_URL: must be an http(s) URL (importer erp-http) (got "ftp://[redacted]@erp.test")',
      ],
    });
    const wrong = modules.definition('wrong-secrets.ts', {
      name: 'wrong-secrets',
      settings: 'z.object({ WS_URL: z.string() })',
      secrets: "['WS_PAIR'] as never",
      describe: "() => 'nowhere'",
      create: IMPORTS,
    });
    expect(await read({ IMPORTER_MODULE: wrong, WS_URL: 'u' })).toEqual({
      problems: [
        'importer wrong-secrets lists WS_PAIR in its secrets, which is not one of its settings (WS_URL)',
      ],
    });
  });

  it('hides its secrets in what comes out of it: describe, errors, locations, log lines', async () => {
    const leaky = modules.write(
      'leaky.ts',
      `import { defineImporter, PermanentImportError, z } from ${JSON.stringify(ENTRY)};
export default defineImporter({
  name: 'leaky',
  settings: z.object({ LEAKY_URL: z.string(), LEAKY_PAIR: z.string(), LEAKY_API_KEY: z.string() }),
  secrets: ['LEAKY_PAIR'],
  describe: (s) => \`books at \${s.LEAKY_URL} as \${s.LEAKY_PAIR}\`,
  create: ({ settings: s, logger }) => ({
    async import(input) {
      logger.warn({ key: s.LEAKY_API_KEY }, 'calling with ' + btoa('Bearer ' + s.LEAKY_API_KEY));
      if (input.messageId === 'refused') {
        throw new PermanentImportError('refused for ' + s.LEAKY_PAIR.toUpperCase());
      }
      if (input.messageId === 'down') throw new Error('down: ' + encodeURIComponent(s.LEAKY_API_KEY));
      return { status: 'imported', location: '\\u001b[2J' + s.LEAKY_PAIR + '\\n' + 'x'.repeat(900) };
    },
  }),
});`,
    );
    const loaded = await read({
      IMPORTER_MODULE: leaky,
      LEAKY_URL: 'https://erp-user:Url-Pw-4411@erp.test',
      LEAKY_PAIR: 'client-Pair-8830',
      LEAKY_API_KEY: 'Key/7731+zz',
    });
    if (!('importer' in loaded)) throw new Error(loaded.problems.join('\n'));
    expect(loaded.importer.describe({ documentsDir: dir })).toBe(
      'books at https://[redacted]@erp.test as [redacted]',
    );
    const lines: string[] = [];
    const recording = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const importer = await loaded.importer.create({ logger: recording, documentsDir: dir });
    const input = (messageId: string) => ({ messageId }) as ImportInput;
    const refused = await importer.import(input('refused')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PermanentImportError);
    expect((refused as PermanentImportError).reason).toBe('refused for [redacted]');
    await expect(importer.import(input('down'))).rejects.toThrow(/^down: \[redacted\]$/);
    const fine = await importer.import(input('fine'));
    const location = fine.status === 'not_booked' ? undefined : fine.location;
    expect(location).toMatch(/^\[redacted\] x+…$/);
    expect(location).toHaveLength(REMOTE_TEXT_LIMIT);
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      importer: 'leaky',
      key: '[redacted]',
      msg: 'calling with QmVhcmVyI[redacted]',
    });
  });

  it('refuses a setting that is a variable of the consumer itself', async () => {
    const greedy = modules.definition('greedy.ts', {
      name: 'greedy',
      settings: 'z.object({ API_TOKEN: z.string(), WEBHOOK_SECRETS: z.string() })',
      describe: "() => 'nowhere'",
      create: IMPORTS,
    });
    const loaded = await read({ IMPORTER_MODULE: greedy, API_TOKEN: 't', WEBHOOK_SECRETS: 's' });
    expect(loaded).toEqual({
      problems: [
        expect.stringMatching(/^importer greedy declares API_TOKEN, a variable of the consumer/),
        expect.stringMatching(/^importer greedy declares WEBHOOK_SECRETS, a variable/),
      ],
    });
  });

  it('reads only the variables it declares', async () => {
    const seen = modules.definition('seen.ts', {
      name: 'seen',
      settings: 'z.looseObject({ SEEN_URL: z.string() })',
      describe: '(s) => JSON.stringify(s)',
      create: IMPORTS,
    });
    const loaded = await read({ IMPORTER_MODULE: seen, SEEN_URL: 'u', API_TOKEN: 'secret' });
    if (!('importer' in loaded)) throw new Error(loaded.problems.join('\n'));
    expect(loaded.importer.describe({ documentsDir: '' })).toBe('{"SEEN_URL":"u"}');
  });

  it('says how to move a module written for the old createImporter(config, logger)', async () => {
    const old = modules.write(
      'old.ts',
      'export function createImporter() { return { import: async () => ({}) }; }',
    );
    expect(await read({ IMPORTER_MODULE: old })).toEqual({
      problems: [expect.stringContaining('export default defineImporter(')],
    });
  });

  it('names the module it could not find or load, and what names exist', async () => {
    const missing = await read({ IMPORTER_MODULE: 'my-erp' });
    expect(missing).toEqual({
      problems: [
        expect.stringMatching(
          /^IMPORTER_MODULE my-erp: no module at .*src\/importers\/my-erp\.ts; a name is a file of src\/importers\/ \(there: .*erp-http, file/,
        ),
      ],
    });
    const broken = modules.write('broken.ts', 'throw new Error("boom at load");');
    expect(await read({ IMPORTER_MODULE: broken })).toEqual({
      problems: [expect.stringMatching(/could not be loaded: boom at load$/)],
    });
  });

  it('creates the importer, and refuses a factory that returns no importer', async () => {
    const logger = pino({ level: 'silent' });
    const loaded = await read({ IMPORTER_MODULE: 'file' });
    if (!('importer' in loaded)) throw new Error(loaded.problems.join('\n'));
    const importer = await loaded.importer.create({ logger, documentsDir: dir });
    expect(typeof importer.import).toBe('function');
    const empty = modules.definition('empty.ts', {
      name: 'empty',
      settings: 'z.object({})',
      describe: "() => 'nowhere'",
      create: '() => ({}) as never',
    });
    const emptyLoaded = await read({ IMPORTER_MODULE: empty });
    if (!('importer' in emptyLoaded)) throw new Error(emptyLoaded.problems.join('\n'));
    await expect(emptyLoaded.importer.create({ logger, documentsDir: dir })).rejects.toThrow(
      /create\(\) did not return an object with an import\(\) method/,
    );
  });
});
