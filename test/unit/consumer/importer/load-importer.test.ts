/**
 * How IMPORTER_MODULE finds an importer and reads its settings: by name from src/importers/,
 * by path from the project's root (never the working directory), and with every problem named.
 */
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { coreVariableNames } from '../../../../src/consumer/config.ts';
import { importerNames, readImporter } from '../../../../src/consumer/importer/index.ts';
import { PROJECT_ROOT } from '../../../../src/consumer/modules/module-folder.ts';
import { createModuleFiles } from '../../../support/module-files.ts';

const modules = createModuleFiles('load-importer-', {
  path: join(PROJECT_ROOT, 'src/consumer/importer/index.ts'),
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
