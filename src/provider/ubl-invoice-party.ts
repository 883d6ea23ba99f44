/**
 * A party of the UBL invoice or credit note (cac:Party): the seller in
 * cac:AccountingSupplierParty, the buyer in cac:AccountingCustomerParty.
 */
import type { BillingParty } from './billing/billing-parties.ts';
import { inCodeList } from './billing/codes.ts';
import { address, el, group } from './ubl-invoice-elements.ts';

/** `doc`: what the whole document decides about a party (BR-O-02, the buyer's fallback e-mail). */
export function party(
  p: BillingParty,
  role: 'supplier' | 'customer',
  doc: { notSubjectToVat: boolean; buyerEmail: string | undefined },
): string {
  const scheme = p.endpoint?.scheme;
  // The network identifier doubles as the party identifier (BT-29, BT-46) when its scheme
  // is an ISO 6523 ICD, which most EAS codes are.
  const identification =
    scheme !== undefined && inCodeList('IDENTIFIER_SCHEME', scheme) ? p.endpoint : undefined;
  const vatNumber = doc.notSubjectToVat ? undefined : p.vatNumber;
  const email = p.contact?.email ?? (role === 'customer' ? doc.buyerEmail : undefined);
  return group(
    'cac:Party',
    el('cbc:EndpointID', p.endpoint?.id, { schemeID: scheme }),
    group(
      'cac:PartyIdentification',
      el('cbc:ID', identification?.id, { schemeID: identification?.scheme }),
    ),
    group('cac:PartyName', el('cbc:Name', p.tradingName)),
    address('cac:PostalAddress', p.address),
    group(
      'cac:PartyTaxScheme',
      el('cbc:CompanyID', vatNumber),
      vatNumber === undefined ? '' : group('cac:TaxScheme', el('cbc:ID', 'VAT')),
    ),
    group(
      'cac:PartyTaxScheme',
      el('cbc:CompanyID', p.taxRegistrationId),
      p.taxRegistrationId === undefined ? '' : group('cac:TaxScheme', el('cbc:ID', 'TAX')),
    ),
    group(
      'cac:PartyLegalEntity',
      el('cbc:RegistrationName', p.name),
      el('cbc:CompanyID', p.legalRegistration?.id, { schemeID: p.legalRegistration?.schemeId }),
    ),
    group(
      'cac:Contact',
      el('cbc:Name', p.contact?.name),
      el('cbc:Telephone', p.contact?.telephone),
      el('cbc:ElectronicMail', email),
    ),
  );
}
