/**
 * What rules compiled by our Schematron compiler (test/support/schematron) report when Saxon-HE
 * runs them, on small schemas written for each behaviour the official rule sets rely on. The
 * official rules themselves are the subject of peppol-bis.test.ts; this is the compiler's own
 * contract, run where Java is (npm run test:peppol).
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseSvrl, type RuleFailure } from '../support/official-validators.ts';
import { compileSchematronFile } from '../support/schematron/compile.ts';
import { testFolder } from '../support/test-folder.ts';

const run = promisify(execFile);
const SAXON = '/usr/share/java/Saxon-HE.jar';
const SCH = 'xmlns="http://purl.oclc.org/dsdl/schematron"';

/** Compiles `schema`, runs it on each document (one JVM), returns each document's failures. */
async function validate(schema: string, documents: string[]): Promise<RuleFailure[][]> {
  const dir = testFolder('schematron-run-');
  const sch = path.join(dir, 'rules.sch');
  await writeFile(sch, schema);
  await writeFile(path.join(dir, 'rules.xslt'), await compileSchematronFile(sch));
  const input = path.join(dir, 'in');
  const output = path.join(dir, 'out');
  await Promise.all([mkdir(input), mkdir(output)]);
  const names = documents.map((_, i) => `${i}.xml`);
  await Promise.all(documents.map((xml, i) => writeFile(path.join(input, names[i] ?? ''), xml)));
  const args = ['-cp', SAXON, 'net.sf.saxon.Transform', `-s:${input}`, `-o:${output}`];
  await run('java', [...args, `-xsl:${path.join(dir, 'rules.xslt')}`], { maxBuffer: 1 << 20 });
  return Promise.all(
    names.map(async (n) => parseSvrl('PEPPOL', await readFile(path.join(output, n), 'utf8'))),
  );
}

const brief = (failures: RuleFailure[]) => failures.map((f) => `${f.id} ${f.location}`);

describe('rules compiled by our Schematron compiler, run by Saxon-HE', { timeout: 60_000 }, () => {
  it('fires the first matching rule of a pattern only, while every other pattern still sees the node', async () => {
    const [failures] = await validate(
      `<schema ${SCH} queryBinding="xslt2">
        <pattern id="first-wins">
          <rule context="item[@kind = 'special']"><assert id="SPECIAL" test="false()">s</assert></rule>
          <rule context="item"><assert id="ANY-ITEM" test="false()">i</assert></rule>
        </pattern>
        <pattern id="other"><rule context="item"><assert id="OTHER" test="false()">o</assert></rule></pattern>
      </schema>`,
      ['<list><item kind="special"/><item/></list>'],
    );
    expect(brief(failures ?? [])).toEqual([
      'SPECIAL /list[1]/item[1]',
      'ANY-ITEM /list[1]/item[2]',
      'OTHER /list[1]/item[1]',
      'OTHER /list[1]/item[2]',
    ]);
  });

  it('reports id, flag (none counts as fatal), an XPath location of elements and attributes, and the text with value-of and name', async () => {
    const [failures] = await validate(
      `<schema ${SCH} queryBinding="xslt2">
        <ns prefix="i" uri="urn:example:invoice"/>
        <pattern>
          <rule context="i:Line"><assert id="R1" flag="warning" test="i:Amount &gt; 0">Line <value-of select="i:ID"/> of <name/> has <value-of select="i:Amount"/>.</assert></rule>
          <rule context="@currency"><assert id="R2" test=". = ('EUR', 'NOK')">Currency <value-of select="."/></assert></rule>
        </pattern>
      </schema>`,
      [
        `<x:Invoice xmlns:x="urn:example:invoice"><x:Line><x:ID>1</x:ID><x:Amount currency="EUR">5</x:Amount></x:Line>
         <x:Line><x:ID>2</x:ID><x:Amount currency="SEK">0</x:Amount></x:Line></x:Invoice>`,
      ],
    );
    expect(failures).toEqual([
      {
        ruleSet: 'PEPPOL',
        id: 'R1',
        flag: 'warning',
        location: '/x:Invoice[1]/x:Line[2]',
        text: 'Line 2 of x:Line has 0.',
      },
      {
        ruleSet: 'PEPPOL',
        id: 'R2',
        flag: 'fatal',
        location: '/x:Invoice[1]/x:Line[2]/x:Amount[1]/@currency',
        text: 'Currency SEK',
      },
    ]);
  });

  it('evaluates lets at schema and pattern level on the document, at rule level on the context node', async () => {
    const [failures] = await validate(
      `<schema ${SCH} queryBinding="xslt2">
        <let name="limit" value="number(/order/@limit)"/>
        <pattern>
          <let name="count" value="count(//line)"/>
          <rule context="line">
            <let name="own" value="number(@qty)"/>
            <assert id="OVER" test="$own le $limit">qty <value-of select="$own"/> over <value-of select="$limit"/> (of <value-of select="$count"/> lines)</assert>
          </rule>
        </pattern>
      </schema>`,
      ['<order limit="10"><line qty="3"/><line qty="12"/></order>'],
    );
    expect(failures?.map((f) => `${f.id} ${f.location}: ${f.text}`)).toEqual([
      'OVER /order[1]/line[2]: qty 12 over 10 (of 2 lines)',
    ]);
  });

  it('passes xsl:function through, recursion included, and keeps regular expressions with braces', async () => {
    const [good, bad] = await validate(
      `<schema ${SCH} xmlns:u="utils" queryBinding="xslt2">
        <ns prefix="u" uri="utils"/>
        <function xmlns="http://www.w3.org/1999/XSL/Transform" name="u:digits">
          <param name="s"/>
          <sequence select="if ($s = '') then 0 else number(substring($s, 1, 1)) + u:digits(substring($s, 2))"/>
        </function>
        <pattern>
          <rule context="code">
            <assert id="SUM" test="u:digits(.) mod 10 = 0">digit sum</assert>
            <assert id="FORM" test="matches(., '^[0-9]{3,4}$')">three or four digits</assert>
          </rule>
        </pattern>
      </schema>`,
      ['<code>1234</code>', '<code>12345</code>'],
    );
    expect(brief(good ?? [])).toEqual([]);
    expect(brief(bad ?? [])).toEqual(['SUM /code[1]', 'FORM /code[1]']);
  });

  it('runs the patterns of the default phase only, and an abstract pattern through its is-a instance', async () => {
    const [failures] = await validate(
      `<schema ${SCH} queryBinding="xslt2" defaultPhase="bound-only">
        <phase id="bound-only"><active pattern="bound"/></phase>
        <pattern abstract="true" id="model">
          <rule context="$Party"><assert id="BR-X" test="$BR-X">a party needs a name</assert></rule>
        </pattern>
        <pattern is-a="model" id="bound">
          <param name="Party" value="seller | buyer"/>
          <param name="BR-X" value="normalize-space(name) != ''"/>
        </pattern>
        <pattern id="left-out"><rule context="*"><assert id="NEVER" test="false()">n</assert></rule></pattern>
      </schema>`,
      ['<deal><seller><name>S</name></seller><buyer><name> </name></buyer></deal>'],
    );
    expect(brief(failures ?? [])).toEqual(['BR-X /deal[1]/buyer[1]']);
  });
});
