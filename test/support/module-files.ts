/**
 * Fork modules written for a test of how they are loaded (load-importer, load-sink): files in
 * a temporary folder of the test file's own, removed after its tests. A module is any text, or
 * a definition made with the fork point's define function, imported from its entry as a
 * forker's module would.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** The parts of a definition, each as code: `settings: 'z.object({ ... })'`. */
export interface DefinitionParts {
  name?: string;
  settings: string;
  /** The settings listed as secrets, as code: `"['MY_PAIR']"`. */
  secrets?: string;
  describe: string;
  create: string;
}

export interface ModuleFiles {
  dir: string;
  /** Writes `text` as `file` in the folder; returns its path. */
  write(file: string, text: string): string;
  /** Writes a module whose default export is made with the entry's define function. */
  definition(file: string, parts: DefinitionParts): string;
}

export function createModuleFiles(
  prefix: string,
  entry: { path: string; define: 'defineImporter' | 'defineStatusSink' },
): ModuleFiles {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    const path = join(dir, file);
    writeFileSync(path, text);
    return path;
  };
  return {
    dir,
    write,
    definition: (file, parts) =>
      write(
        file,
        `import { ${entry.define}, z } from ${JSON.stringify(entry.path)};
export default ${entry.define}({
${parts.name === undefined ? '' : `  name: ${JSON.stringify(parts.name)},\n`}  settings: ${parts.settings},
${parts.secrets === undefined ? '' : `  secrets: ${parts.secrets},\n`}  describe: ${parts.describe},
  create: ${parts.create},
});`,
      ),
  };
}
