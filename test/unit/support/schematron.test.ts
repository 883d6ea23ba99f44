/**
 * The Schematron compiler's reading of a schema, without a JVM: includes, abstract patterns,
 * phases and what it refuses. What the compiled rules then find in documents is tested with
 * Saxon in test/official/schematron-compiler.test.ts (npm run test:peppol).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileSchematronFile } from '../../support/schematron/compile.ts';
import { SchematronError } from '../../support/schematron/schema.ts';
import { testFolder } from '../../support/test-folder.ts';

const SCH = 'xmlns="http://purl.oclc.org/dsdl/schematron"';

/** Writes `files` (relative path → text) into a fresh folder; returns the first one's path. */
function schemaFiles(files: Record<string, string>): string {
  const dir = testFolder('schematron-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return path.join(dir, Object.keys(files)[0] ?? '');
}

const schema = (body: string, attributes = '') =>
  `<schema ${SCH} queryBinding="xslt2"${attributes}>${body}</schema>`;

/** The match, mode and priority of each rule template, in the order written. */
function ruleTemplates(xslt: string) {
  return [...xslt.matchAll(/<xsl:template match="([^"]*)" mode="(P\d+)" priority="(\d+)">/g)].map(
    ([, match, mode, priority]) => ({ match, mode, priority: Number(priority) }),
  );
}

describe('the Schematron compiler reads a schema', () => {
  it('replaces includes by the files they name, nested and relative to the including file', async () => {
    const file = schemaFiles({
      'main.sch': schema('<include href="parts/a.sch"/>'),
      'parts/a.sch': `<pattern ${SCH} id="a"><include href="rules/r.sch"/></pattern>`,
      'parts/rules/r.sch': `<rule ${SCH} context="item"><assert test="@id">id</assert></rule>`,
    });
    expect(ruleTemplates(await compileSchematronFile(file))).toEqual([
      { match: 'item', mode: 'P1', priority: 1001 },
    ]);
  });

  it('names an include it cannot read, and refuses one that is not a relative path', async () => {
    const missing = schemaFiles({ 'main.sch': schema('<include href="nowhere.sch"/>') });
    await expect(compileSchematronFile(missing)).rejects.toThrow(/nowhere\.sch/);
    const remote = schemaFiles({ 'main.sch': schema('<include href="https://x.test/a.sch"/>') });
    await expect(compileSchematronFile(remote)).rejects.toThrow(
      /include href="https:\/\/x.test\/a.sch" is not a relative file path/,
    );
  });

  it('stops an include cycle with a message instead of recursing for ever', async () => {
    const file = schemaFiles({
      'main.sch': schema('<include href="loop.sch"/>'),
      'loop.sch': `<pattern ${SCH}><include href="loop.sch"/></pattern>`,
    });
    await expect(compileSchematronFile(file)).rejects.toThrow(/includes nested deeper than 16/);
  });

  it('instantiates an abstract pattern, replacing each parameter whole ($BR-01 is not the start of $BR-010)', async () => {
    const file = schemaFiles({
      'main.sch': schema(`
        <pattern abstract="true" id="model">
          <rule context="$Line "><assert test="$BR-01 and $BR-010" id="BR-01">x</assert></rule>
        </pattern>
        <pattern is-a="model" id="bound">
          <param name="Line " value="cac:InvoiceLine"/>
          <param name="BR-01" value="exists(a)"/>
          <param name="BR-010" value="exists(b)"/>
        </pattern>`),
    });
    const xslt = await compileSchematronFile(file);
    expect(ruleTemplates(xslt)).toEqual([{ match: 'cac:InvoiceLine', mode: 'P1', priority: 1001 }]);
    expect(xslt).toContain('<xsl:when test="exists(a) and exists(b)">');
    expect(xslt).toContain('<svrl:active-pattern id="bound"/>');
    expect(xslt).not.toContain('$BR-01');
  });

  it('names an is-a without its abstract pattern, and a rule context left without a value', async () => {
    const orphan = schemaFiles({ 'main.sch': schema('<pattern is-a="none" id="p"/>') });
    await expect(compileSchematronFile(orphan)).rejects.toThrow(
      /<pattern p> is-a="none": no abstract pattern has that id/,
    );
    const unbound = schemaFiles({
      'main.sch': schema(`
        <pattern abstract="true" id="m"><rule context="$Line"><assert test="true()">x</assert></rule></pattern>
        <pattern is-a="m" id="p"/>`),
    });
    await expect(compileSchematronFile(unbound)).rejects.toThrow(
      /<pattern p> gives no param for the rule context "\$Line"/,
    );
  });

  it('runs every pattern by default and only the active ones of a phase, rules first to last', async () => {
    const file = schemaFiles({
      'main.sch': schema(`
        <phase id="second-only"><active pattern="two"/></phase>
        <pattern id="one"><rule context="a"><assert test="1">x</assert></rule></pattern>
        <pattern id="two">
          <rule context="b"><assert test="1">x</assert></rule>
          <rule context="*"><assert test="1">x</assert></rule>
        </pattern>`),
    });
    expect(ruleTemplates(await compileSchematronFile(file))).toEqual([
      { match: 'a', mode: 'P1', priority: 1001 },
      { match: 'b', mode: 'P2', priority: 1002 },
      { match: '*', mode: 'P2', priority: 1001 },
    ]);
    expect(ruleTemplates(await compileSchematronFile(file, { phase: 'second-only' }))).toEqual([
      { match: 'b', mode: 'P1', priority: 1002 },
      { match: '*', mode: 'P1', priority: 1001 },
    ]);
    await expect(compileSchematronFile(file, { phase: 'third' })).rejects.toThrow(
      'no phase is called third',
    );
  });

  it('refuses what it does not compile, by name, rather than ignore it', async () => {
    const cases: [string, RegExp][] = [
      [schema('', ' queryBinding="xslt"').replace(' queryBinding="xslt2"', ''), /only xslt2/],
      [schema('<pattern><rule context="a" diagnostics="d"/></pattern>'), /@diagnostics/],
      [schema('<pattern><rule abstract="true" id="r" context="a"/></pattern>'), /abstract rules/],
      [
        schema('<let name="x" value="1"/><pattern><let name="x" value="2"/></pattern>'),
        /two global lets are called x/,
      ],
      [
        schema('<pattern><rule context="a"><assert test="1"><foo/></assert></rule></pattern>'),
        /<foo> in assert text/,
      ],
      ['<pattern xmlns="http://purl.oclc.org/dsdl/schematron"/>', /not a Schematron <schema>/],
      [schema('<pattern><rule context="a"></pattern>'), /main\.sch/],
    ];
    for (const [text, message] of cases) {
      const file = schemaFiles({ 'main.sch': text });
      await expect(compileSchematronFile(file), text).rejects.toThrow(SchematronError);
      await expect(compileSchematronFile(file), text).rejects.toThrow(message);
    }
  });
});
