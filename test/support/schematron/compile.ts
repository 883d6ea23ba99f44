/**
 * ISO Schematron (queryBinding xslt2) to an XSLT 2.0 stylesheet whose output is SVRL: what the
 * official Peppol BIS Billing 3 and CEN EN16931 UBL rule sets use, and an error naming anything
 * else. Ours, written from the standard (ISO/IEC 19757-3), so that the project runs the official
 * rules from their .sch files alone: nothing compiled elsewhere is needed or committed.
 *
 * The semantics, as the standard and the processors that compiled the official XSLT have them:
 * - every active pattern walks the whole document (elements and attributes) in a mode of its own;
 *   in each pattern a node fires at most the first rule (document order) whose context matches
 *   it, and the walk goes on into its children and attributes either way;
 * - `let` at schema, phase and pattern level is a global variable (evaluated with the document
 *   as context), at rule level a variable of that rule, evaluated on its context node;
 * - `xsl:function` and `xsl:key` under the schema are copied as they are;
 * - a failed `assert` (or a `report` whose test holds) is written with its id, flag, role, the
 *   test, a location (an XPath of the node: each step its name and position among siblings of
 *   that name) and its text, `value-of` and `name` evaluated;
 * - phases: the `phase` asked for, else the schema's defaultPhase, else all patterns (#ALL).
 */
import { type Element, type Node, XMLSerializer } from '@xmldom/xmldom';
import { expandAbstractPatterns } from './expand.ts';
import {
  childElements,
  describe,
  loadSchema,
  SCH,
  SchematronError,
  schChildren,
  XSL,
} from './schema.ts';

export const SVRL = 'http://purl.oclc.org/dsdl/svrl';
/** The namespace of the compiler's own helper function (the location). */
const OWN = 'urn:x-schematron-compiler:location';

export interface CompileOptions {
  /** A phase id, or '#ALL'. @default the schema's defaultPhase, else '#ALL' */
  phase?: string;
}

/** The XSLT 2.0 text that validates documents against the schema in `file`. */
export async function compileSchematronFile(file: string, options: CompileOptions = {}) {
  return compileSchema(await loadSchema(file), options);
}

/** The XSLT 2.0 text for a loaded schema element (its includes already resolved). */
export function compileSchema(schema: Element, options: CompileOptions = {}): string {
  const binding = schema.getAttribute('queryBinding') ?? '';
  if (!['xslt2', 'xslt3'].includes(binding.toLowerCase())) {
    throw new SchematronError(`queryBinding="${binding}": only xslt2 (and xslt3) is compiled`);
  }
  expandAbstractPatterns(schema);
  rejectUnsupported(schema);

  const patterns = activePatterns(schema, options.phase);
  const namespaces = new Map<string, string>();
  for (const ns of schChildren(schema, 'ns')) {
    const prefix = ns.getAttribute('prefix') ?? '';
    const uri = ns.getAttribute('uri') ?? '';
    if (prefix === '' || uri === '') throw new SchematronError('an <ns> lacks a prefix or uri');
    if (['xsl', 'svrl', 'own'].includes(prefix)) {
      throw new SchematronError(`<ns prefix="${prefix}"> is reserved by the compiled stylesheet`);
    }
    namespaces.set(prefix, uri);
  }

  const globals = [
    ...schChildren(schema, 'let'),
    ...patterns.phaseLets,
    ...patterns.active.flatMap((p) => schChildren(p, 'let')),
  ];
  const seen = new Set<string>();
  for (const let_ of globals) {
    const name = let_.getAttribute('name') ?? '';
    if (seen.has(name)) {
      throw new SchematronError(`two global lets are called ${name} (schema, phase or pattern)`);
    }
    seen.add(name);
  }

  const xslPassThrough = childElements(schema).filter((e) => e.namespaceURI === XSL);
  const serializer = new XMLSerializer();
  const title = schChildren(schema, 'title')[0]?.textContent?.replace(/\s+/g, ' ').trim() ?? '';

  const out: string[] = [];
  const nsDeclarations = [...namespaces].map(([p, uri]) => ` xmlns:${p}="${attr(uri)}"`).join('');
  out.push(
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!-- Compiled from Schematron by test/support/schematron (generated: do not edit). -->',
    `<xsl:stylesheet version="2.0" xmlns:xsl="${XSL}" xmlns:svrl="${SVRL}" xmlns:own="${OWN}"${nsDeclarations} exclude-result-prefixes="#all">`,
    '<xsl:output method="xml" indent="yes" encoding="UTF-8"/>',
  );
  for (const let_ of globals) out.push(variable(let_));
  for (const element of xslPassThrough) out.push(serializer.serializeToString(element));
  out.push(LOCATION_FUNCTIONS);

  out.push('<xsl:template match="/">');
  out.push(
    `<svrl:schematron-output title="${attr(title)}" phase="${attr(patterns.phase)}" schemaVersion="${attr(schema.getAttribute('schemaVersion') ?? '')}">`,
  );
  for (const [prefix, uri] of namespaces) {
    out.push(`<svrl:ns-prefix-in-attribute-values prefix="${attr(prefix)}" uri="${attr(uri)}"/>`);
  }
  patterns.active.forEach((pattern, i) => {
    const id = pattern.getAttribute('id');
    out.push(`<svrl:active-pattern${id ? ` id="${avt(id)}"` : ''}/>`);
    out.push(`<xsl:apply-templates select="/" mode="${mode(i)}"/>`);
  });
  out.push('</svrl:schematron-output>', '</xsl:template>');

  patterns.active.forEach((pattern, i) => {
    out.push(...patternTemplates(pattern, mode(i)));
  });
  out.push('</xsl:stylesheet>', '');
  return out.join('\n');
}

function mode(index: number): string {
  return `P${index + 1}`;
}

/** The patterns the phase runs, in document order, and the phase's own lets. */
function activePatterns(schema: Element, asked: string | undefined) {
  const all = schChildren(schema, 'pattern');
  const phase = asked ?? (schema.getAttribute('defaultPhase') || '#ALL');
  if (phase === '#ALL' || phase === '#DEFAULT') {
    if (phase === '#DEFAULT' && schema.getAttribute('defaultPhase')) {
      return activePatterns(schema, schema.getAttribute('defaultPhase') ?? '#ALL');
    }
    return { phase: '#ALL', active: all, phaseLets: [] as Element[] };
  }
  const element = schChildren(schema, 'phase').find((p) => p.getAttribute('id') === phase);
  if (element === undefined) throw new SchematronError(`no phase is called ${phase}`);
  const ids = new Set(schChildren(element, 'active').map((a) => a.getAttribute('pattern')));
  for (const id of ids) {
    if (!all.some((p) => p.getAttribute('id') === id)) {
      throw new SchematronError(`phase ${phase} activates ${id}, which no pattern is called`);
    }
  }
  return {
    phase,
    active: all.filter((p) => ids.has(p.getAttribute('id'))),
    phaseLets: schChildren(element, 'let'),
  };
}

/** One template per rule (the first rule the highest priority) and the walk's defaults. */
function patternTemplates(pattern: Element, mode: string): string[] {
  const rules = schChildren(pattern, 'rule');
  const out: string[] = [];
  rules.forEach((rule, index) => {
    const context = rule.getAttribute('context')?.trim() ?? '';
    if (context === '') throw new SchematronError(`${describe(rule)} has no context`);
    // Earlier rules win: priorities fall in document order, all above the defaults below.
    out.push(
      `<xsl:template match="${attr(context)}" mode="${mode}" priority="${1000 + rules.length - index}">`,
    );
    for (const let_ of schChildren(rule, 'let')) out.push(variable(let_));
    for (const check of childElements(rule)) {
      if (check.namespaceURI !== SCH) continue;
      if (check.localName === 'assert') out.push(assertion(check, 'failed-assert', true));
      if (check.localName === 'report') out.push(assertion(check, 'successful-report', false));
    }
    out.push(`<xsl:apply-templates select="@*|*" mode="${mode}"/>`, '</xsl:template>');
  });
  out.push(
    `<xsl:template match="text()" mode="${mode}" priority="-1"/>`,
    `<xsl:template match="@*|node()" mode="${mode}" priority="-2">`,
    `<xsl:apply-templates select="@*|*" mode="${mode}"/>`,
    '</xsl:template>',
  );
  return out;
}

/** An assert writes when its test is false, a report when its test is true. */
function assertion(check: Element, kind: string, writesWhenFalse: boolean): string {
  const test = check.getAttribute('test') ?? '';
  if (test.trim() === '') throw new SchematronError(`${describe(check)} has no test`);
  const attributes = ['id', 'flag', 'role']
    .map((name) => [name, check.getAttribute(name)] as const)
    .filter(([, value]) => value !== null && value !== '')
    .map(([name, value]) => ` ${name}="${avt(value ?? '')}"`)
    .join('');
  const report = [
    `<svrl:${kind} test="${avt(test)}"${attributes} location="{own:location(.)}">`,
    `<svrl:text>${assertionText(check)}</svrl:text>`,
    `</svrl:${kind}>`,
  ].join('');
  const [when, otherwise] = writesWhenFalse ? ['', report] : [report, ''];
  return `<xsl:choose><xsl:when test="${attr(test)}">${when}</xsl:when><xsl:otherwise>${otherwise}</xsl:otherwise></xsl:choose>`;
}

/** The assert's text with value-of and name evaluated; emph, dir and span kept as text. */
function assertionText(check: Element): string {
  const parts: string[] = [];
  const walk = (node: Node) => {
    for (let child = node.firstChild; child !== null; child = child.nextSibling) {
      if (child.nodeType === child.TEXT_NODE || child.nodeType === child.CDATA_SECTION_NODE) {
        parts.push(`<xsl:text>${text(child.nodeValue ?? '')}</xsl:text>`);
      } else if (child.nodeType === child.ELEMENT_NODE) {
        const element = child as Element;
        if (element.namespaceURI !== SCH) {
          throw new SchematronError(`${describe(check)}: <${element.nodeName}> in assert text`);
        }
        if (element.localName === 'value-of') {
          parts.push(`<xsl:value-of select="${attr(element.getAttribute('select') ?? '.')}"/>`);
        } else if (element.localName === 'name') {
          const path = element.getAttribute('path') || '.';
          parts.push(`<xsl:value-of select="name(${attr(path)})"/>`);
        } else if (['emph', 'dir', 'span'].includes(element.localName ?? '')) {
          walk(element);
        } else {
          throw new SchematronError(`${describe(check)}: <${element.localName}> in assert text`);
        }
      }
    }
  };
  walk(check);
  return parts.join('');
}

function variable(let_: Element): string {
  const name = let_.getAttribute('name') ?? '';
  const value = let_.getAttribute('value');
  if (name === '') throw new SchematronError('a <let> has no name');
  if (value === null) throw new SchematronError(`<let name="${name}"> has no value attribute`);
  return `<xsl:variable name="${attr(name)}" select="${attr(value)}"/>`;
}

/**
 * The XPath of a node, as SVRL's location: /name[n] steps (n counts the preceding siblings of
 * the same expanded name), an attribute's step /@name; the document node is '/'.
 */
const LOCATION_FUNCTIONS = `<xsl:function name="own:location">
<xsl:param name="node"/>
<xsl:variable name="steps" select="for $n in $node/ancestor-or-self::node()[parent::node()] return own:step($n)"/>
<xsl:sequence select="if (empty($steps)) then '/' else string-join($steps, '')"/>
</xsl:function>
<xsl:function name="own:step">
<xsl:param name="n"/>
<xsl:sequence select="if ($n instance of attribute()) then concat('/@', name($n))
  else if ($n instance of element()) then concat('/', name($n), '[', 1 + count($n/preceding-sibling::*[node-name(.) eq node-name($n)]), ']')
  else concat('/', if ($n instance of text()) then 'text()' else if ($n instance of comment()) then 'comment()' else 'processing-instruction()', '[', 1 + count($n/preceding-sibling::node()[. instance of text()]), ']')"/>
</xsl:function>`;

/** What the standard allows and neither rule set uses: named, not silently ignored. */
function rejectUnsupported(schema: Element): void {
  const check = (element: Element) => {
    if (element.namespaceURI === SCH) {
      if (element.localName === 'rule' && element.getAttribute('abstract') === 'true') {
        throw new SchematronError(`${describe(element)}: abstract rules are not compiled`);
      }
      if (['extends', 'diagnostics', 'properties'].includes(element.localName ?? '')) {
        throw new SchematronError(`<${element.localName}> is not compiled`);
      }
      for (const name of ['diagnostics', 'properties', 'subject', 'documents']) {
        if (element.hasAttribute(name)) {
          throw new SchematronError(`${describe(element)}: @${name} is not compiled`);
        }
      }
    }
    for (const child of childElements(element)) check(child);
  };
  check(schema);
}

/** Text for an XML attribute value. */
function attr(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;')
    .replace(/\t/g, '&#9;');
}

/** Text for an attribute of a literal result element, which XSLT reads as a value template. */
function avt(value: string): string {
  return attr(value).replace(/\{/g, '{{').replace(/\}/g, '}}');
}

/** Text for element content. */
function text(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
