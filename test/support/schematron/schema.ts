/**
 * Reading a Schematron schema (ISO/IEC 19757-3) into one element: the file parsed, and every
 * `include` replaced by the element it names, recursively, resolved against the including file.
 * Only the schema's own files are read, all of them local paths; nothing is fetched.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DOMParser, type Element, type Node } from '@xmldom/xmldom';

export const SCH = 'http://purl.oclc.org/dsdl/schematron';
export const XSL = 'http://www.w3.org/1999/XSL/Transform';

/** A schema this compiler cannot turn into XSLT as written; the message names what and where. */
export class SchematronError extends Error {
  override name = 'SchematronError';
}

/** Includes deeper than this are a cycle or a mistake, not a schema. */
const MAX_INCLUDE_DEPTH = 16;

/** The schema element of `file`, its includes resolved. */
export async function loadSchema(file: string): Promise<Element> {
  const root = await parseFile(file);
  if (root.namespaceURI !== SCH || root.localName !== 'schema') {
    throw new SchematronError(`${file}: the root is <${root.nodeName}>, not a Schematron <schema>`);
  }
  await resolveIncludes(root, file, 0);
  return root;
}

async function parseFile(file: string): Promise<Element> {
  const text = await readFile(file, 'utf8');
  let document: ReturnType<DOMParser['parseFromString']>;
  try {
    document = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new SchematronError(`${file}: ${message}`);
      },
    }).parseFromString(text, 'text/xml');
  } catch (error) {
    if (error instanceof SchematronError) throw error;
    throw new SchematronError(`${file}: ${(error as Error).message}`);
  }
  const root = document.documentElement;
  if (root === null) throw new SchematronError(`${file}: no root element`);
  return root;
}

/** Replaces each sch:include under `element` by the root of the file it names. */
async function resolveIncludes(element: Element, file: string, depth: number): Promise<void> {
  for (const child of childElements(element)) {
    if (child.namespaceURI === SCH && child.localName === 'include') {
      const href = child.getAttribute('href') ?? '';
      if (href === '' || href.includes('#') || /^[a-z][\w+.-]*:/i.test(href)) {
        throw new SchematronError(`${file}: include href="${href}" is not a relative file path`);
      }
      if (depth >= MAX_INCLUDE_DEPTH) {
        throw new SchematronError(`${file}: includes nested deeper than ${MAX_INCLUDE_DEPTH}`);
      }
      const target = path.resolve(path.dirname(file), href);
      const included = await parseFile(target);
      await resolveIncludes(included, target, depth + 1);
      const document = element.ownerDocument;
      if (document === null) throw new SchematronError(`${file}: an element outside a document`);
      element.replaceChild(document.importNode(included, true), child);
    } else {
      await resolveIncludes(child, file, depth);
    }
  }
}

/** The element children of `node`, in document order (a copy: safe to change the node). */
export function childElements(node: Node): Element[] {
  const out: Element[] = [];
  for (let child = node.firstChild; child !== null; child = child.nextSibling) {
    if (child.nodeType === child.ELEMENT_NODE) out.push(child as Element);
  }
  return out;
}

/** The Schematron children of `node` called `name`. */
export function schChildren(node: Node, name: string): Element[] {
  return childElements(node).filter((e) => e.namespaceURI === SCH && e.localName === name);
}

/** A short "where" for messages: the element's name and id or context. */
export function describe(element: Element): string {
  const key = element.getAttribute('id') || element.getAttribute('context') || '';
  return `<${element.localName}${key ? ` ${key.trim()}` : ''}>`;
}
