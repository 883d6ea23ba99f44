/**
 * Abstract patterns (ISO Schematron 6.3): a pattern with `abstract="true"` is a template whose
 * rules name parameters as `$name`; a pattern with `is-a="<its id>"` instantiates it, giving each
 * parameter a value with `param`. The instance is the abstract pattern's content with every
 * `$name` of a parameter replaced by its value, textually, in the query attributes (context,
 * test, select, value, path), under the instance's own id. The CEN EN16931 rules bind their
 * syntax-neutral model (abstract/EN16931-model.sch) to UBL this way, with 1,046 params.
 */
import type { Element } from '@xmldom/xmldom';
import { childElements, describe, SchematronError, schChildren } from './schema.ts';

/** The attributes that hold queries, the only places a parameter is replaced. */
const QUERY_ATTRIBUTES = ['context', 'test', 'select', 'value', 'path'];

/**
 * A variable reference: `$` and an XPath NCName, matched whole so that `$BR-01` is never taken
 * for the start of `$BR-010` (XPath reads `$a-1` as the variable `a-1`, and so does this).
 */
const REFERENCE = /\$([A-Za-z_][\w.-]*)/g;

/** Replaces, in place, every is-a pattern of `schema` by its instance and drops the abstract ones. */
export function expandAbstractPatterns(schema: Element): void {
  const patterns = schChildren(schema, 'pattern');
  const abstract = new Map<string, Element>();
  for (const pattern of patterns) {
    if (pattern.getAttribute('abstract') !== 'true') continue;
    const id = pattern.getAttribute('id') ?? '';
    if (id === '') throw new SchematronError('an abstract pattern has no id');
    if (abstract.has(id)) throw new SchematronError(`two abstract patterns are called ${id}`);
    abstract.set(id, pattern);
  }
  for (const pattern of patterns) {
    const isA = pattern.getAttribute('is-a');
    if (isA === null || isA === '') continue;
    const template = abstract.get(isA);
    if (template === undefined) {
      throw new SchematronError(
        `${describe(pattern)} is-a="${isA}": no abstract pattern has that id`,
      );
    }
    schema.replaceChild(instantiate(template, pattern), pattern);
  }
  for (const pattern of abstract.values()) schema.removeChild(pattern);
}

function instantiate(template: Element, instance: Element): Element {
  const params = new Map<string, string>();
  for (const param of schChildren(instance, 'param')) {
    // Trimmed: CEN's model binding writes one name with a trailing space
    // ("Additional_supporting_documents "), which XPath would end the variable's name at anyway.
    const name = (param.getAttribute('name') ?? '').trim();
    if (name === '') throw new SchematronError(`${describe(instance)} has a param without a name`);
    params.set(name, param.getAttribute('value') ?? '');
  }
  const copy = template.cloneNode(true) as Element;
  copy.removeAttribute('abstract');
  for (const name of ['id', 'documents']) {
    const value = instance.getAttribute(name);
    if (value === null) copy.removeAttribute(name);
    else copy.setAttribute(name, value);
  }
  substitute(copy, params, instance);
  return copy;
}

function substitute(element: Element, params: ReadonlyMap<string, string>, instance: Element) {
  for (const name of QUERY_ATTRIBUTES) {
    const value = element.getAttribute(name);
    if (value === null || !value.includes('$')) continue;
    element.setAttribute(
      name,
      value.replace(REFERENCE, (whole, param: string) => params.get(param) ?? whole),
    );
  }
  const context = element.getAttribute('context');
  if (element.localName === 'rule' && context !== null && /^\s*\$/.test(context)) {
    throw new SchematronError(
      `${describe(instance)} gives no param for the rule context "${context.trim()}"`,
    );
  }
  for (const child of childElements(element)) substitute(child, params, instance);
}
