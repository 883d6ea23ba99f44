/**
 * A folder of the running test's own, for what the processes it starts write (a database,
 * documents, journals). Made under the system's temporary folder and removed once the test has
 * finished, passed or failed: after its afterEach hooks, which stop what still writes into it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/** Call it from a test or a beforeEach; `prefix` names the folder, e.g. 'crash-e2e-'. */
export function testFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
