/**
 * The simulator's UBL documents against the official validators (UBL 2.1 XSD, CEN EN16931 UBL
 * rules, Peppol BIS Billing 3 rules): see test/support/official-validators.ts for the artefacts,
 * which are not in this repository. Run with `PEPPOL_ARTEFACTS_DIR=<folder> npm run test:peppol`;
 * not part of `npm test`; CI runs it when the artefacts lie beside the repository (.ci/peppol.sh).
 *
 * All documents (official examples, the broken copies, the matrix) go through one batch: one
 * JVM start per rule set.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { renderUblInvoice } from '../../src/provider/ubl-invoice.ts';
import { describeOfficial } from '../support/official-suite.ts';
import {
  ARTEFACTS,
  createOfficialValidator,
  fatalIds,
  fatalTable,
  type OfficialDocument,
  type OfficialResult,
} from '../support/official-validators.ts';
import { BROKEN, peppolMatrix } from '../support/peppol-matrix.ts';

/** The official example the negative controls break. */
const BASE_EXAMPLE = 'base-example.xml';

/** The example without its document-level cac:TaxTotal (the first one, before the lines). */
function withoutTaxTotal(xml: string): string {
  const broken = xml.replace(/<cac:TaxTotal>[\s\S]*?<\/cac:TaxTotal>/, '');
  if (broken === xml) throw new Error(`${BASE_EXAMPLE} has no cac:TaxTotal to remove`);
  return broken;
}

/** The example with its first invoice line's LineExtensionAmount 1000 too high. */
function withWrongLineAmount(xml: string): string {
  const start = xml.indexOf('<cac:InvoiceLine>');
  const amount = /(<cbc:LineExtensionAmount\b[^>]*>)([^<]*)/.exec(xml.slice(start));
  if (start < 0 || amount === null) throw new Error(`${BASE_EXAMPLE} has no line amount`);
  const at = start + amount.index + (amount[1] ?? '').length;
  const wrong = (Number(amount[2]) + 1000).toFixed(2);
  return xml.slice(0, at) + wrong + xml.slice(at + (amount[2] ?? '').length);
}

describeOfficial('official Peppol BIS Billing 3 validators', (dir) => {
  const results = new Map<string, OfficialResult>();
  let examples: string[] = [];
  let matrix: OfficialDocument[] = [];
  let matrixError: unknown;

  const result = (name: string): OfficialResult => {
    const found = results.get(name);
    if (found === undefined) throw new Error(`no result for ${name}`);
    return found;
  };

  beforeAll(async () => {
    const exampleDir = path.join(dir, ARTEFACTS.examples);
    examples = (await readdir(exampleDir)).filter((f) => f.endsWith('.xml')).sort();
    const official = await Promise.all(
      examples.map(async (f) => ({
        name: `example/${f}`,
        xml: await readFile(path.join(exampleDir, f), 'utf8'),
      })),
    );
    const base = await readFile(path.join(exampleDir, BASE_EXAMPLE), 'utf8');
    const broken = [
      { name: 'broken/no-tax-total', xml: withoutTaxTotal(base) },
      { name: 'broken/wrong-line-amount', xml: withWrongLineAmount(base) },
    ];
    try {
      matrix = peppolMatrix().map((d) => ({ name: `matrix/${d.name}`, xml: d.xml }));
    } catch (error) {
      matrixError = error;
    }
    // The bodies the simulator refuses, rendered as a network that lets errors through would.
    const refused = BROKEN.filter((c) => c.official).map((c) => ({
      name: `refused/${c.name}`,
      xml: renderUblInvoice(c.body),
    }));
    const documents = [...official, ...broken, ...matrix, ...refused];
    const started = performance.now();
    const validated = await createOfficialValidator({ artefactsDir: dir }).validate(documents);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.info(`official validators: ${documents.length} documents in ${seconds} s`);
    for (const r of validated) results.set(r.name, r);
  }, 240_000);

  it('passes every official example: no XSD error, no fatal (positive control)', () => {
    expect(examples.length).toBeGreaterThan(0);
    const bad = examples
      .map((f) => result(`example/${f}`))
      .filter((r) => r.xsdErrors.length > 0 || fatalIds(r).length > 0);
    expect(bad, `official examples that fail:\n${fatalTable(bad)}`).toEqual([]);
  });

  it('fails a copy without its cac:TaxTotal with BR-CO-18 and PEPPOL-EN16931-R053', () => {
    const r = result('broken/no-tax-total');
    expect(r.xsdErrors).toEqual([]);
    expect(fatalIds(r)).toEqual(
      expect.arrayContaining(['BR-CO-18', 'BR-CO-15', 'PEPPOL-EN16931-R053']),
    );
  });

  it('fails a copy with a wrong LineExtensionAmount with BR-CO-10 and PEPPOL-EN16931-R120', () => {
    const r = result('broken/wrong-line-amount');
    expect(r.xsdErrors).toEqual([]);
    expect(fatalIds(r)).toEqual(expect.arrayContaining(['BR-CO-10', 'PEPPOL-EN16931-R120']));
    const lineRule = r.failures.find((f) => f.id === 'PEPPOL-EN16931-R120');
    expect(lineRule?.location).toMatch(/InvoiceLine.*\[1\]$/);
  });

  it('passes every document of the simulator matrix: no XSD error, no fatal', () => {
    if (matrixError !== undefined) throw matrixError;
    expect(matrix.length).toBeGreaterThan(0);
    const all = matrix.map((d) => result(d.name));
    const bad = all.filter((r) => r.xsdErrors.length > 0 || fatalIds(r).length > 0);
    const details = bad
      .flatMap((r) => [
        ...r.xsdErrors.map((e) => `  ${r.name} XSD: ${e}`),
        ...r.failures
          .filter((f) => f.flag === 'fatal')
          .map((f) => `  ${r.name} ${f.ruleSet} ${f.id}: ${f.text}`),
      ])
      .slice(0, 200)
      .join('\n');
    expect(
      bad.map((r) => r.name),
      `matrix documents that fail the official validators:\n${fatalTable(all)}\n\n${details}`,
    ).toEqual([]);
  });

  it.each(BROKEN.filter((c) => c.official).map((c) => [c.name, c.rule]))(
    'fails the body the simulator refuses for %s with the same rule, %s',
    (name, rule) => {
      expect(fatalIds(result(`refused/${name}`))).toContain(rule);
    },
  );
});
