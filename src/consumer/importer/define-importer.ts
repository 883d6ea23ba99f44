/**
 * What an importer module is: a name, the settings it reads (its own environment variables,
 * never the core's), a line that says where imports go, and a factory. A module exports one as
 * its default export:
 *
 *   export default defineImporter({
 *     settings: z.object({ MY_ERP_URL: z.url(), MY_ERP_TOKEN: z.string().min(1) }),
 *     secrets: ['MY_ERP_TOKEN'],
 *     describe: (settings) => `invoices go to ${settings.MY_ERP_URL}`,
 *     create: ({ settings, logger }) => createMyErpImporter(settings, logger),
 *   });
 *
 * The consumer validates the settings together with its own configuration (one report of every
 * problem, exit 2, in every command that imports), then calls `create` once per process.
 * Whatever comes out of the importer (its errors, its results' locations, its log lines,
 * `describe`) passes a redaction of its secrets first (modules/module-redaction.ts).
 * docs/forking.md is the guide; README.md beside this file is the contract.
 */
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Importer } from './importer.ts';

/** What `create` receives: its settings, parsed; a logger; where fetched documents wait. */
export interface ImporterContext<Settings> {
  /** The importer's own variables, parsed by its `settings` schema. */
  settings: Settings;
  /** The consumer's logger, with `importer: <name>` on every line. */
  logger: Logger;
  /**
   * DOCUMENTS_DIR: fetched documents are spooled under it (`.incoming/`), so a file importer
   * writing there can rename them into place instead of copying them.
   */
  documentsDir: string;
}

/** The environment variables an importer reads, by name: a zod object of strings. */
export type SettingsSchema = z.ZodObject;

export interface ImporterDefinition<Schema extends SettingsSchema = SettingsSchema> {
  /**
   * Shown in logs, the dev banner and the kit's report.
   * @default the module's file name (`my-erp` for src/importers/my-erp.ts)
   */
  name?: string;
  /**
   * The importer's variables. Each key is an environment variable name (use a prefix of your
   * own, such as `ERP_`); each value a zod schema of the variable's text, unset and empty
   * both read as undefined. A name of the consumer's own configuration is refused: an importer
   * never sees the core's secrets.
   */
  settings: Schema;
  /**
   * The settings whose values are secrets (a token, a password). Their values, in plain,
   * base64, percent-encoded and upper- or lower-case forms, are hidden in everything the
   * importer's errors, results and log lines carry into the consumer, as is the userinfo of any
   * URL. A name containing TOKEN, SECRET, PASSWORD, PASSPHRASE, KEY or CREDENTIAL is secret
   * whether listed or not; list the others (`MY_ERP_CLIENT_ID_PAIR`), and the named ones too,
   * for the reader.
   * @default []
   */
  secrets?: ReadonlyArray<Extract<keyof z.output<Schema>, string>>;
  /**
   * One line on where imports go, for the dev banner and the start-up log. Never a secret
   * (its secrets and URL userinfo are hidden all the same).
   */
  describe(settings: z.output<Schema>, context: { documentsDir: string }): string;
  /** Builds the importer. Called once per process, after the settings are valid. */
  create(context: ImporterContext<z.output<Schema>>): Importer | Promise<Importer>;
}

/** Types an importer module's default export (an identity function, for inference). */
export function defineImporter<Schema extends SettingsSchema>(
  definition: ImporterDefinition<Schema>,
): ImporterDefinition<Schema> {
  return definition;
}
