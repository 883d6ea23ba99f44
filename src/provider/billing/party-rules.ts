/**
 * The rules of the supplier and the customer (fatal, official ids): their identifiers' schemes
 * and check digits, the country code, the VAT number's country prefix.
 */
import type { BillingParty } from './billing-parties.ts';
import { IDENTIFIER_CHECKS, inCodeList } from './codes.ts';
import type { Fail } from './rule-helpers.ts';

export function checkParty(
  party: BillingParty,
  at: string,
  role: 'supplier' | 'customer',
  fail: Fail,
) {
  const endpoint = party.endpoint;
  if (endpoint !== undefined) {
    if (!inCodeList('ELECTRONIC_ADDRESS_SCHEME', endpoint.scheme)) {
      fail(
        'BR-CL-25',
        `${role}.identifier scheme ${endpoint.scheme} is not an EAS code`,
        `${at}/cbc:EndpointID/@schemeID`,
      );
    }
    const check = IDENTIFIER_CHECKS[endpoint.scheme];
    if (check !== undefined && !check.valid(endpoint.id)) {
      fail(
        check.rule,
        `${role}.identifier ${endpoint.scheme}:${endpoint.id} is not a valid number of its scheme`,
        `${at}/cbc:EndpointID`,
      );
    }
  }
  const registration = party.legalRegistration;
  if (registration?.schemeId !== undefined) {
    if (!inCodeList('IDENTIFIER_SCHEME', registration.schemeId)) {
      fail(
        'BR-CL-11',
        `${role}.legalRegistration scheme ${registration.schemeId} is not an ISO 6523 ICD code`,
        `${at}/cac:PartyLegalEntity/cbc:CompanyID/@schemeID`,
      );
    }
    const check = IDENTIFIER_CHECKS[registration.schemeId];
    if (check !== undefined && !check.valid(registration.id)) {
      fail(
        check.rule,
        `${role}.legalRegistration ${registration.id} is not a valid number of scheme ${registration.schemeId}`,
        `${at}/cac:PartyLegalEntity/cbc:CompanyID`,
      );
    }
  }
  const country = party.address?.country;
  if (country !== undefined && !inCodeList('COUNTRY', country)) {
    fail(
      'BR-CL-14',
      `${role}.address.countryCode ${country} is not an ISO 3166-1 alpha-2 code`,
      `${at}/cac:PostalAddress/cac:Country/cbc:IdentificationCode`,
    );
  }
  const vat = party.vatNumber;
  if (vat !== undefined && !(inCodeList('COUNTRY', vat.slice(0, 2)) || vat.startsWith('EL'))) {
    fail(
      'BR-CO-09',
      `${role}.vatNumber ${vat} does not start with its country's ISO 3166-1 code`,
      `${at}/cac:PartyTaxScheme/cbc:CompanyID`,
    );
  }
}
