/**
 * A wrong importer, for the contract kit's own tests: the file importer, with a forget() that
 * removes the message's folder when retention deletes the consumer's record of it. The folder
 * is the import itself (the system of record of a file importer), and it is also what tells a
 * later call that the message was imported: a replayed event then imports it again. The kit's
 * `import.forget` fails.
 */
import { rm } from 'node:fs/promises';
import { createFileImporter, defineImporter, z } from '../../../src/consumer/importer/index.ts';

export default defineImporter({
  name: 'forget-removes-documents',
  settings: z.object({}),
  describe: (_settings, { documentsDir }) => `documents are written to ${documentsDir}`,
  create({ documentsDir, logger }) {
    const files = createFileImporter({ documentsDir, logger });
    return {
      import: (input) => files.import(input),
      // Wrong: forget() removes only what the importer keeps for the consumer's sake.
      async forget({ location }) {
        if (location !== null) await rm(location, { recursive: true, force: true });
      },
    };
  },
});
