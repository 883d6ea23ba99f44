/**
 * The official validators of a Peppol BIS Billing 3 document, run on many documents at once:
 * the OASIS UBL 2.1 XSD (xmllint), the CEN EN16931 UBL rules and the OpenPEPPOL BIS Billing 3
 * rules (their Schematron compiled to XSLT by our own compiler, test/support/schematron, and run
 * by Saxon-HE). One xmllint per root kind and one JVM per rule set for the whole batch, not per
 * document: a JVM start and a stylesheet compile cost seconds, a document milliseconds.
 *
 * The artefacts are NOT in this repository and must not be: the UBL XSD is OASIS's, the CEN
 * rules are under EUPL-1.2, the Peppol rules are OpenPEPPOL's (with CEN's permission), and this
 * project commits nothing fetched from elsewhere, nor anything compiled from them. They are data
 * files in a folder outside the repository, passed as `artefactsDir` (the test reads it from
 * PEPPOL_ARTEFACTS_DIR; CI lays it beside the repository as ../shared/peppol-artefacts), laid
 * out as ARTEFACTS below (docs/peppol.md#official-validators says where each comes from):
 *
 *   ubl-2.1/xsd/maindoc/UBL-{Invoice,CreditNote}-2.1.xsd (+ ubl-2.1/xsd/common/)
 *       OASIS UBL 2.1 (OASIS Standard).
 *   cen/ubl/schematron/EN16931-UBL-validation.sch (+ the files it includes)
 *       CEN TC434 EN16931 UBL validation 1.3.16 (github.com/ConnectingEurope/eInvoicing-EN16931,
 *       tag validation-1.3.16, `ubl/schematron/`).
 *   peppol/rules/sch/PEPPOL-EN16931-UBL.sch
 *       Peppol BIS Billing 3.0.19 (github.com/OpenPEPPOL/peppol-bis-invoice-3, tag v3.0.19).
 *   peppol/rules/sch/CEN-EN16931-UBL.sch
 *       the CEN rules that Peppol release bundles (1.3.14.1; it still has BR-CO-25, dropped in
 *       1.3.16): the third rule set.
 *   peppol/rules/examples/*.xml
 *       the official examples of that Peppol release, the positive control.
 *
 * The .sch files are compiled once per validator, into each batch's temporary folder, never
 * kept. Needs java (17) and xmllint on PATH and the Saxon-HE jar (Debian's libsaxonhe-java by
 * default). A failed assert without a flag counts as fatal (Schematron's default is an error);
 * successful reports are not read (neither rule set uses report for errors).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compileSchematronFile } from './schematron/compile.ts';

/** Where each artefact lies under `artefactsDir`. */
export const ARTEFACTS = {
  invoiceXsd: 'ubl-2.1/xsd/maindoc/UBL-Invoice-2.1.xsd',
  creditNoteXsd: 'ubl-2.1/xsd/maindoc/UBL-CreditNote-2.1.xsd',
  cenRules: 'cen/ubl/schematron/EN16931-UBL-validation.sch',
  peppolRules: 'peppol/rules/sch/PEPPOL-EN16931-UBL.sch',
  bundledCenRules: 'peppol/rules/sch/CEN-EN16931-UBL.sch',
  examples: 'peppol/rules/examples',
} as const;

export type RuleSet = 'CEN' | 'PEPPOL' | 'CEN-BUNDLED';

export interface OfficialDocument {
  /** Unique within a batch; names the document in the results. */
  name: string;
  xml: string;
}

export interface RuleFailure {
  ruleSet: RuleSet;
  id: string;
  /** 'fatal' or 'warning' as the rule says; 'fatal' when it says nothing. */
  flag: string;
  /** XPath of the node the rule fired on. */
  location: string;
  text: string;
}

export interface OfficialResult {
  name: string;
  /** Local name of the root element ('Invoice', 'CreditNote', or what else it was). */
  root: string;
  /** Schema errors (xmllint's lines, file name removed); also a root that has no UBL XSD here. */
  xsdErrors: string[];
  failures: RuleFailure[];
}

export interface OfficialValidator {
  /** Results in the order of `documents`. */
  validate(documents: readonly OfficialDocument[]): Promise<OfficialResult[]>;
}

export interface OfficialValidatorOptions {
  artefactsDir: string;
  /** @default '/usr/share/java/Saxon-HE.jar' */
  saxonJar?: string;
  /** @default 'java' */
  java?: string;
  /** @default 'xmllint' */
  xmllint?: string;
  /** Parent of the batch's temporary folder (removed afterwards). @default os.tmpdir() */
  tmpRoot?: string;
  /** Per child process. @default 180_000 */
  timeoutMs?: number;
  /** Kept of each child's stdout + stderr; the rest is dropped. @default 4 MiB */
  maxOutputBytes?: number;
  /** Largest SVRL report read; a larger one is a failure of its document. @default 16 MiB */
  maxReportBytes?: number;
}

/** What of ARTEFACTS is missing under `dir` (empty when all is there). */
export function missingArtefacts(dir: string): string[] {
  return Object.values(ARTEFACTS).filter((file) => !existsSync(path.join(dir, file)));
}

/**
 * The artefacts folder a test of test/official runs on (PEPPOL_ARTEFACTS_DIR), or why it cannot
 * run: such a test fails with that reason rather than skip (it runs only on purpose).
 */
export function artefactsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): { dir: string } | { missing: string } {
  const dir = env.PEPPOL_ARTEFACTS_DIR?.trim();
  if (!dir)
    return { missing: 'PEPPOL_ARTEFACTS_DIR is not set (the folder of the official artefacts)' };
  const lacking = missingArtefacts(dir);
  if (lacking.length > 0) {
    return {
      missing: `PEPPOL_ARTEFACTS_DIR=${dir} lacks ${lacking.join(', ')} (layout: test/support/official-validators.ts)`,
    };
  }
  return { dir };
}

const UBL_ROOTS = { Invoice: ARTEFACTS.invoiceXsd, CreditNote: ARTEFACTS.creditNoteXsd } as const;
/** Each rule set: its Schematron under the artefacts, and the batch's folder of reports. */
const RULE_SETS: readonly { ruleSet: RuleSet; schematron: string; dir: string }[] = [
  { ruleSet: 'CEN', schematron: ARTEFACTS.cenRules, dir: 'cen' },
  { ruleSet: 'PEPPOL', schematron: ARTEFACTS.peppolRules, dir: 'peppol' },
  { ruleSet: 'CEN-BUNDLED', schematron: ARTEFACTS.bundledCenRules, dir: 'cen-bundled' },
];

export function createOfficialValidator(options: OfficialValidatorOptions): OfficialValidator {
  const {
    artefactsDir,
    saxonJar = '/usr/share/java/Saxon-HE.jar',
    java = 'java',
    xmllint = 'xmllint',
    tmpRoot = tmpdir(),
    timeoutMs = 180_000,
    maxOutputBytes = 4 * 1024 * 1024,
    maxReportBytes = 16 * 1024 * 1024,
  } = options;
  const limits = { timeoutMs, maxOutputBytes };
  // Compiled once per validator (a few hundred milliseconds), written into each batch's folder.
  let compiled: Promise<string[]> | undefined;
  const stylesheets = () => {
    compiled ??= Promise.all(
      RULE_SETS.map((set) => compileSchematronFile(path.join(artefactsDir, set.schematron))),
    );
    return compiled;
  };

  /** xmllint on every document of one root kind; schema errors by file name. */
  async function schemaErrors(cwd: string, xsd: string, files: string[]) {
    const errors = new Map<string, string[]>(files.map((file) => [file, []]));
    if (files.length === 0) return errors;
    const run = await runBounded(xmllint, ['--noout', '--schema', xsd, ...files], cwd, limits);
    const lines = run.output.split('\n');
    for (const file of files) {
      const own = errors.get(file) ?? [];
      for (const line of lines)
        if (line.startsWith(`${file}:`)) own.push(line.slice(file.length + 1));
      const valid = lines.includes(`${file} validates`);
      const invalid = lines.includes(`${file} fails to validate`);
      if (!valid && !invalid && own.length === 0) {
        throw new Error(`xmllint said nothing about ${file} (exit ${run.code}):\n${tail(run)}`);
      }
      if (!valid && own.length === 0) own.push('fails to validate (xmllint gave no detail)');
      if (valid) own.length = 0;
    }
    return errors;
  }

  /** One Saxon run of a rule set over the whole input folder: one SVRL file per document. */
  async function runRuleSet(input: string, output: string, xslt: string) {
    await mkdir(output);
    const args = ['-cp', saxonJar, 'net.sf.saxon.Transform', `-s:${input}`, `-xsl:${xslt}`];
    return runBounded(java, [...args, `-o:${output}`], input, limits);
  }

  async function failuresOf(ruleSet: RuleSet, report: string, saxonOutput: string) {
    const size = await stat(report).then(
      (s) => s.size,
      () => undefined,
    );
    const missing = (text: string): RuleFailure[] => [
      { ruleSet, id: 'NO-REPORT', flag: 'fatal', location: '/', text },
    ];
    if (size === undefined) return missing(`no SVRL report; Saxon said:\n${saxonOutput}`);
    if (size > maxReportBytes) return missing(`SVRL report of ${size} bytes, over the limit`);
    return parseSvrl(ruleSet, await readFile(report, 'utf8'));
  }

  return {
    async validate(documents) {
      const names = new Set(documents.map((d) => d.name));
      if (names.size !== documents.length) throw new Error('document names must be unique');
      const work = await mkdtemp(path.join(tmpRoot, 'official-validators-'));
      try {
        const input = path.join(work, 'in');
        await mkdir(input);
        const files = documents.map(
          (d, i) => `${String(i).padStart(4, '0')}-${safeName(d.name)}.xml`,
        );
        await Promise.all(
          documents.map((d, i) => writeFile(path.join(input, files[i] ?? ''), d.xml)),
        );
        const roots = documents.map((d) => rootName(d.xml));
        const xslts = await stylesheets();
        const xsltFiles = RULE_SETS.map((set) => path.join(work, `${set.dir}.xslt`));
        await Promise.all(xsltFiles.map((file, k) => writeFile(file, xslts[k] ?? '')));

        const xsdRuns = Object.entries(UBL_ROOTS).map(([root, xsd]) =>
          schemaErrors(
            input,
            path.join(artefactsDir, xsd),
            files.filter((_, i) => roots[i] === root),
          ),
        );
        const ruleRuns = RULE_SETS.map((set, k) =>
          runRuleSet(input, path.join(work, set.dir), xsltFiles[k] ?? ''),
        );
        const [xsd, rules] = await Promise.all([Promise.all(xsdRuns), Promise.all(ruleRuns)]);

        return await Promise.all(
          documents.map(async (document, i) => {
            const file = files[i] ?? '';
            const root = roots[i] ?? '';
            const xsdErrors =
              root in UBL_ROOTS
                ? xsd.flatMap((byFile) => byFile.get(file) ?? [])
                : [`root element '${root}' is neither Invoice nor CreditNote: no UBL XSD applied`];
            const failures = await Promise.all(
              RULE_SETS.map((set, k) =>
                failuresOf(set.ruleSet, path.join(work, set.dir, file), tail(rules[k])),
              ),
            );
            return { name: document.name, root, xsdErrors, failures: failures.flat() };
          }),
        );
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
  };
}

/** Fatal rule ids of a result, in document order (a rule firing twice is named twice). */
export function fatalIds(result: OfficialResult): string[] {
  return result.failures.filter((f) => f.flag === 'fatal').map((f) => f.id);
}

/** "document | XSD errors | fatal rule ids" lines, for a failure message a person can read. */
export function fatalTable(results: readonly OfficialResult[]): string {
  const width = Math.max(8, ...results.map((r) => r.name.length));
  const rows = results.map((r) => {
    const ids = fatalIds(r);
    const counted = [...new Set(ids)].map((id) => {
      const n = ids.filter((x) => x === id).length;
      return n > 1 ? `${id} x${n}` : id;
    });
    return `${r.name.padEnd(width)} | ${String(r.xsdErrors.length).padStart(3)} | ${counted.join(', ') || '-'}`;
  });
  return [`${'document'.padEnd(width)} | xsd | fatal rule ids`, ...rows].join('\n');
}

/** The SVRL's failed asserts (the compiled rules write them with the svrl: prefix). */
export function parseSvrl(ruleSet: RuleSet, svrl: string): RuleFailure[] {
  const failures: RuleFailure[] = [];
  for (const match of svrl.matchAll(
    /<svrl:failed-assert\b([^>]*?)(?:\/>|>([\s\S]*?)<\/svrl:failed-assert>)/g,
  )) {
    const attributes = new Map<string, string>();
    for (const [, key, value] of (match[1] ?? '').matchAll(/([\w:.-]+)\s*=\s*"([^"]*)"/g)) {
      attributes.set(key ?? '', unescapeXml(value ?? ''));
    }
    const text = /<svrl:text\b[^>]*>([\s\S]*?)<\/svrl:text>/.exec(match[2] ?? '')?.[1] ?? '';
    failures.push({
      ruleSet,
      id: attributes.get('id') ?? '?',
      flag: attributes.get('flag') ?? 'fatal',
      location: attributes.get('location') ?? '',
      text: unescapeXml(text.replace(/<[^>]*>/g, ''))
        .replace(/\s+/g, ' ')
        .trim(),
    });
  }
  return failures;
}

function unescapeXml(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp|#x[0-9a-fA-F]+|#[0-9]+);/g, (_, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(Number(entity.slice(1)));
    return { lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' }[entity] ?? '';
  });
}

/** Local name of the first element, past the prolog, comments and a doctype. */
function rootName(xml: string): string {
  const body = xml.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>/g, '');
  const qname = /<([A-Za-z_][\w.:-]*)/.exec(body)?.[1] ?? '';
  return qname.slice(qname.indexOf(':') + 1);
}

function safeName(name: string): string {
  return name.replace(/[^\w.-]+/g, '_').slice(0, 80);
}

interface BoundedRun {
  code: number | null;
  output: string;
  truncated: boolean;
}

function tail(run: BoundedRun | undefined): string {
  const output = run?.output ?? '';
  return `${run?.truncated ? '[output truncated] ' : ''}${output.slice(-4000)}`;
}

/**
 * Runs `file` to its end with stdout and stderr interleaved, keeping at most `maxOutputBytes`;
 * killed (the child itself, by its pid) after `timeoutMs`. A non-zero exit is not an error: the
 * tools exit non-zero for invalid documents, and the caller reads what they said.
 */
function runBounded(
  file: string,
  args: readonly string[],
  cwd: string,
  limits: { timeoutMs: number; maxOutputBytes: number },
): Promise<BoundedRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let kept = 0;
    let truncated = false;
    const collect = (chunk: Buffer) => {
      const room = limits.maxOutputBytes - kept;
      if (chunk.length > room) truncated = true;
      if (room <= 0) return;
      const part = chunk.subarray(0, room);
      chunks.push(part);
      kept += part.length;
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} ran over ${limits.timeoutMs} ms`));
    }, limits.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${file} could not start: ${error.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: Buffer.concat(chunks).toString('utf8'), truncated });
    });
  });
}
