/**
 * The elements of the UBL invoice and credit note (ubl-invoice.ts). Unlike ubl-elements.ts's,
 * which write a missing value as an empty element, these leave an element out when its value
 * is missing, and a group when all its children are: the body is read loosely
 * (billing/billing-document.ts), and an empty element would break the UBL schema where an
 * absent optional one does not.
 */
import type { BillingAddress } from './billing/billing-parties.ts';
import type { TaxGroup } from './billing/tax-groups.ts';
import { escapeXml } from './ubl-elements.ts';

type Attributes = Record<string, string | undefined>;

/** An element, or nothing when its value is missing. */
export function el(name: string, value: string | undefined, attributes: Attributes = {}): string {
  if (value === undefined) return '';
  const attrs = Object.entries(attributes)
    .filter(([, v]) => v !== undefined)
    .map(([key, v]) => ` ${key}="${escapeXml(v ?? '')}"`)
    .join('');
  return `<${name}${attrs}>${escapeXml(value)}</${name}>`;
}

/** An element of elements, or nothing when all of them are missing. */
export function group(name: string, ...children: string[]): string {
  const content = children.join('');
  return content === '' ? '' : `<${name}>${content}</${name}>`;
}

/** A JSON number as an xs:decimal, never in exponent form (a unit price of 1e-7). */
export function formatDecimal(value: number | undefined): string | undefined {
  return value?.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });
}

/** A VAT category: of a line, of an allowance or charge, or of a breakdown group; O has no rate. */
export function taxCategory(
  name: string,
  code: string | undefined,
  rate: number | undefined,
  exemption?: Pick<TaxGroup, 'exemptionCode' | 'exemptionText'>,
): string {
  return group(
    name,
    el('cbc:ID', code),
    code === 'O' ? '' : el('cbc:Percent', formatDecimal(rate)),
    el('cbc:TaxExemptionReasonCode', exemption?.exemptionCode),
    el('cbc:TaxExemptionReason', exemption?.exemptionText),
    group('cac:TaxScheme', el('cbc:ID', 'VAT')),
  );
}

export function address(name: string, a: BillingAddress | undefined): string {
  return a === undefined
    ? ''
    : group(
        name,
        el('cbc:StreetName', a.street),
        el('cbc:AdditionalStreetName', a.additionalStreet),
        el('cbc:CityName', a.city),
        el('cbc:PostalZone', a.postalZone),
        el('cbc:CountrySubentity', a.subentity),
        group('cac:Country', el('cbc:IdentificationCode', a.country)),
      );
}
