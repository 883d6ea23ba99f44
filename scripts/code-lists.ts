/**
 * Writes src/provider/billing/code-lists.ts, the EN 16931 code lists the simulator validates
 * a submit-invoice body against (units, countries, currencies, VAT categories, exemption
 * reasons, payment means, allowance and charge reasons, identifier schemes, document types).
 *
 * The lists come from the JSON schema of the npm package @e-invoice-eu/core (WTFPL), which
 * carries the code lists of the EN 16931 validation artefacts. It is not a dependency of this
 * project (74 MB with its PDF and spreadsheet libraries), so install it first, without saving:
 *
 *   npm install --no-save @e-invoice-eu/core@2.3.4 && node scripts/code-lists.ts
 *
 * A test (test/unit/provider/code-lists.test.ts) checks the written file parses and holds
 * the codes the simulator's documents use.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const PACKAGE = '@e-invoice-eu/core';

/** The lists written, under the names the simulator uses. */
const LISTS = {
  UNIT: 'UNECERec20',
  COUNTRY: 'ISO3166',
  CURRENCY: 'ISO4217',
  VAT_CATEGORY: 'UNCL5305',
  VAT_EXEMPTION_REASON: 'vatex',
  PAYMENT_MEANS: 'UNCL4461',
  ALLOWANCE_REASON: 'UNCL5189',
  CHARGE_REASON: 'UNCL7161',
  ELECTRONIC_ADDRESS_SCHEME: 'eas',
  IDENTIFIER_SCHEME: 'ICD',
  INVOICE_TYPE: 'UNCL1001-inv',
  CREDIT_NOTE_TYPE: 'UNCL1001-cn',
} as const;

const require = createRequire(import.meta.url);
const { version } = require(`${PACKAGE}/package.json`) as { version: string };
const { invoiceSchema } = (await import(PACKAGE)) as {
  invoiceSchema: { $defs: { codeLists: Record<string, { enum: string[] }> } };
};
const codeLists = invoiceSchema.$defs.codeLists;

const entries = Object.entries(LISTS).map(([name, source]) => {
  const codes = codeLists[source]?.enum;
  if (codes === undefined) throw new Error(`${PACKAGE} ${version} has no code list ${source}`);
  return `  /** ${source}, ${codes.length} codes. */\n  ${name}: '${codes.join(' ')}',`;
});

const file = join(import.meta.dirname, '..', 'src', 'provider', 'billing', 'code-lists.ts');
writeFileSync(
  file,
  [
    `/**`,
    ` * The EN 16931 code lists, written by scripts/code-lists.ts from ${PACKAGE} ${version}`,
    ` * (WTFPL). Do not edit: run the script. Each list is its codes separated by spaces.`,
    ` */`,
    `export const CODE_LIST_SOURCE = '${PACKAGE} ${version}';`,
    '',
    '// biome-ignore format: one line a list keeps the generated file small',
    `export const CODE_LIST_TEXT = {`,
    ...entries,
    `} as const;`,
    '',
  ].join('\n'),
);
console.log(`wrote ${file}`);
