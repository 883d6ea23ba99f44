// tsc compiles TypeScript only; the SQL migrations travel beside the compiled store modules.
import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

function copySql(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) copySql(path);
    else if (entry.name.endsWith('.sql')) cpSync(path, join('dist', path));
  }
}
copySql('src');
