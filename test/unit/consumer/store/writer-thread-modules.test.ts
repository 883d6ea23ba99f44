/**
 * What the SQLite writer thread loads. It is a second V8 heap in every consumer process: each
 * module it loads stays resident for the process's life. The protocol's index (zod and every
 * wire schema) took its heap from 9 to 14 MB and the consumer past its 150 MiB target under
 * load (docs/performance.md#memory), through one value import of a store module.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../../..');
const WRITER_THREAD = join(ROOT, 'src/consumer/store/sqlite/writer-thread.ts');

/** The modules a file loads at run time: its imports and re-exports, less those of types only. */
function runtimeImports(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const specifiers: string[] = [];
  for (const match of source.matchAll(
    /^(?:import|export)\s+(type\s+)?(?:([^;]*?)\s+from\s+)?'([^']+)';/gms,
  )) {
    const [, typeOnly, clause, specifier] = match;
    if (typeOnly !== undefined || specifier === undefined) continue;
    // `import { type A, type B } from`: nothing of it is left in the JavaScript.
    const names = clause?.match(/^\{([^}]*)\}$/s)?.[1];
    if (
      names
        ?.split(',')
        .map((name) => name.trim())
        .filter(Boolean)
        .every((name) => name.startsWith('type '))
    ) {
      continue;
    }
    specifiers.push(specifier);
  }
  return specifiers;
}

/** Every module the file loads, transitively: project files by path, packages by name. */
function moduleGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    const name = relative(ROOT, file);
    if (seen.has(name)) return;
    seen.add(name);
    for (const specifier of runtimeImports(file)) {
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier));
      else seen.add(specifier);
    }
  };
  visit(entry);
  return seen;
}

describe('the SQLite writer thread', () => {
  it('loads the store, SQLite and no schema library', () => {
    const modules = moduleGraph(WRITER_THREAD);
    expect(modules).toContain('better-sqlite3');
    expect(modules).toContain('src/consumer/store/sqlite/sqlite-writes.ts');
    expect(modules).not.toContain('zod');
    expect(modules).not.toContain('src/protocol/index.ts');
    // Only the store's own files, and the protocol's event actions (isKnownAction).
    const outside = [...modules].filter(
      (name) => name.startsWith('src/') && !name.startsWith('src/consumer/store/'),
    );
    expect(outside).toEqual(['src/protocol/event-actions.ts']);
  });

  it('would see a value import of the protocol index (the check can fail)', () => {
    expect(runtimeImports(join(ROOT, 'src/consumer/http/webhook/route.ts'))).toContain(
      '../../../protocol/index.ts',
    );
  });
});
