// tsc compiles TypeScript only; the SQL migrations travel beside the compiled store modules, and
// the provider console's page and browser modules beside the console router.
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
cpSync('src/provider/console/assets', 'dist/src/provider/console/assets', { recursive: true });
cpSync('src/provider/console/page.html', 'dist/src/provider/console/page.html');
