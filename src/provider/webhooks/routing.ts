/**
 * Routing rules of docs/webhook-endpoints.md#routing, as pure functions: validating a rule set and choosing
 * the endpoint of one event. Rule numbers in messages are 1-based, as an operator counts them.
 *
 * Decisions where the service's specification is silent (docs/webhook-endpoints.md#routing):
 * - Document types and formats compare case-insensitively, so `invoice/xml` and `Invoice/XML`
 *   are one pair for overlap detection too; formats are stored upper-case.
 * - A lone rule sends every event of its category (rule 1), so a filter on it is kept but not
 *   applied; it takes effect once a second rule is added.
 */
import { isStatusAction } from '../../protocol/index.ts';
import type { EventRouting } from '../events.ts';
import type { Rule, RuleInput } from './types.ts';

export const FORMATS = ['XML', 'JSON', 'PDF', 'EDI'] as const;
const WILDCARD = '*';

export interface FilterPair {
  /** Document type name or `*`. */
  documentType: string;
  /** One of FORMATS or `*`. */
  format: string;
}

/** Splits a filter into pairs; `problems` describes each pair that is not `<type>/<format>`. */
export function parseFilter(filter: string): { pairs: FilterPair[]; problems: string[] } {
  const pairs: FilterPair[] = [];
  const problems: string[] = [];
  for (const raw of filter.split(',')) {
    const entry = raw.trim();
    const parts = entry.split('/').map((part) => part.trim());
    const [documentType, format] = parts;
    if (parts.length !== 2 || !documentType || !format) {
      problems.push(`"${entry}" is not a <document type>/<format> pair`);
      continue;
    }
    const upper = format.toUpperCase();
    if (upper !== WILDCARD && !(FORMATS as readonly string[]).includes(upper)) {
      problems.push(`"${entry}" has format "${format}"; use ${FORMATS.join(', ')} or *`);
      continue;
    }
    pairs.push({ documentType, format: upper });
  }
  return { pairs, problems };
}

export function formatFilter(pairs: readonly FilterPair[]): string {
  return pairs.map((pair) => `${pair.documentType}/${pair.format}`).join(',');
}

/**
 * Checks a category's rule set against docs/webhook-endpoints.md#routing and returns the normalized rules,
 * or every violation found (an operator fixes them all in one go, not one per request).
 */
export function validateRules(
  inputs: readonly RuleInput[],
  endpointIds: ReadonlySet<string>,
): { rules: Rule[]; violations: string[] } {
  const violations: string[] = [];
  const parsed: { rule: Rule; pairs: FilterPair[] }[] = [];
  inputs.forEach((input, index) => {
    const number = index + 1;
    if (input.target !== null && !endpointIds.has(input.target)) {
      violations.push(
        `rule ${number}: target ${input.target} is not an endpoint of this participant`,
      );
    }
    const filterText = input.filter?.trim() ?? '';
    const rule: Rule = {
      target: input.target,
      statusEventsForOwnChanges: input.statusEventsForOwnChanges ?? true,
    };
    let pairs: FilterPair[] = [];
    if (filterText !== '') {
      const result = parseFilter(filterText);
      for (const problem of result.problems) violations.push(`rule ${number}: ${problem}`);
      pairs = result.pairs;
      rule.filter = formatFilter(pairs);
    } else if (inputs.length > 1) {
      violations.push(
        `rule ${number}: a filter is required when a category has more than one rule`,
      );
    }
    parsed.push({ rule, pairs });
  });
  // Rule 3: one rule per combination. Only checked between rules; a repeat inside one rule is harmless.
  for (let i = 0; i < parsed.length; i++) {
    for (let j = i + 1; j < parsed.length; j++) {
      for (const a of parsed[i]?.pairs ?? []) {
        for (const b of parsed[j]?.pairs ?? []) {
          const common = overlap(a, b);
          if (common !== undefined) {
            violations.push(
              `rules ${i + 1} and ${j + 1} both cover ${common} ("${formatFilter([a])}" and "${formatFilter([b])}")`,
            );
          }
        }
      }
    }
  }
  return { rules: parsed.map((entry) => entry.rule), violations };
}

/** The combination two pairs both match, or undefined when they are disjoint. */
function overlap(a: FilterPair, b: FilterPair): string | undefined {
  const type = common(a.documentType, b.documentType);
  const format = common(a.format, b.format);
  return type === undefined || format === undefined ? undefined : `${type}/${format}`;
}

function common(a: string, b: string): string | undefined {
  if (a === WILDCARD) return b;
  if (b === WILDCARD) return a;
  return a.toLowerCase() === b.toLowerCase() ? a : undefined;
}

export function pairMatches(pair: FilterPair, documentType: string, format: string): boolean {
  return (
    (pair.documentType === WILDCARD ||
      pair.documentType.toLowerCase() === documentType.toLowerCase()) &&
    (pair.format === WILDCARD || pair.format === format.toUpperCase())
  );
}

export type RouteDecision = { send: true; endpointId: string } | { send: false; reason: string };

/** Where one event goes under a category's rules; no fallback (rule 4). */
export function routeEvent(
  rules: readonly Rule[],
  action: string,
  routing: EventRouting,
): RouteDecision {
  const subject = `${routing.documentType}/${routing.format}`;
  if (rules.length === 0) {
    return {
      send: false,
      reason: `not sent: the ${routing.category} category has no routing rules`,
    };
  }
  const index =
    rules.length === 1
      ? 0
      : rules.findIndex((rule) =>
          parseFilter(rule.filter ?? '').pairs.some((pair) =>
            pairMatches(pair, routing.documentType, routing.format),
          ),
        );
  const rule = rules[index];
  if (rule === undefined) {
    return {
      send: false,
      reason: `not sent: no ${routing.category} routing rule matches ${subject}`,
    };
  }
  const number = index + 1;
  if (isStatusAction(action) && routing.ownChange && !rule.statusEventsForOwnChanges) {
    return {
      send: false,
      reason: `not sent: ${routing.category} rule ${number} switches off status events for own changes`,
    };
  }
  if (rule.target === null) {
    return {
      send: false,
      reason: `not sent: ${routing.category} rule ${number} targets "not sent"`,
    };
  }
  return { send: true, endpointId: rule.target };
}
