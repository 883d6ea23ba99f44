// tsc compiles TypeScript only; the SQL migrations travel beside the compiled store modules, and
// the provider console's page and browser modules beside the console router.
// Paths are taken from this file's location, so it works from any working directory.
import { cpSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');

function copySql(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) copySql(path);
    else if (entry.name.endsWith('.sql')) cpSync(path, join(root, 'dist', relative(root, path)));
  }
}
copySql(join(root, 'src'));
const console = 'src/provider/console';
cpSync(join(root, console, 'assets'), join(root, 'dist', console, 'assets'), { recursive: true });
cpSync(join(root, console, 'page.html'), join(root, 'dist', console, 'page.html'));
