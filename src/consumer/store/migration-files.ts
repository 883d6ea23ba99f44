/**
 * The numbered SQL files each store applies at start-up (sqlite/migrate.ts,
 * postgres/migrate.ts): which files there are, which of them a database still lacks, and the
 * refusal of a database that records a migration newer than any of them (a deployment rolled
 * back after a newer version ran), which would otherwise be used half-understood. How a store
 * applies them, under which lock and in which transactions, is its own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { MigrationError } from './store.ts';

/** One file of a migrations folder, `<version>_<what>.sql`; released, it is never edited. */
export interface MigrationFile {
  version: number;
  /** The file's name, as schema_migrations records it. */
  name: string;
  /** The file's statements. */
  read(): string;
}

/** A migration a database records as applied: a row of its schema_migrations. */
export interface AppliedMigration {
  version: number;
  name: string;
}

/** The migration files of `dir`, oldest first. */
export function migrationFiles(dir: URL): MigrationFile[] {
  return readdirSync(dir)
    .filter((name) => /^\d+_.+\.sql$/.test(name))
    .sort()
    .map((name) => ({
      version: Number.parseInt(name, 10),
      name,
      read: () => readFileSync(new URL(name, dir), 'utf8'),
    }));
}

/**
 * The files a database still lacks, in order, given the migrations it records (`applied`, in
 * version order); a MigrationError when it records one newer than every file.
 */
export function migrationsToApply(
  files: readonly MigrationFile[],
  applied: readonly AppliedMigration[],
): MigrationFile[] {
  const known = Math.max(0, ...files.map((file) => file.version));
  const newest = applied.at(-1);
  if (newest !== undefined && newest.version > known) {
    throw new MigrationError(
      `the database was migrated by a newer version of this program (migration ` +
        `${newest.name}; this one knows up to ${known}): run that version, or restore a ` +
        'backup taken before it',
    );
  }
  const done = new Set(applied.map((row) => row.version));
  return files.filter((file) => !done.has(file.version));
}
