/** The default importer, `file`, against the importer contract: every case it can be checked on holds. */
import { describeImporterContract } from '../../../src/importer-kit/index.ts';

describeImporterContract({ importer: 'file' });
