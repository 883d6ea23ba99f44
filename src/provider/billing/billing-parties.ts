/** The supplier and the customer of a billing document, read from the body's JSON. */
import { isPlainObject } from '../invoice.ts';
import { object, text } from './json-fields.ts';

export interface BillingAddress {
  street?: string | undefined;
  additionalStreet?: string | undefined;
  city?: string | undefined;
  postalZone?: string | undefined;
  subentity?: string | undefined;
  country?: string | undefined;
}

export interface BillingParty {
  /** The network identifier split at its colon: the scheme (EAS) and the number. */
  endpoint?: { scheme: string; id: string } | undefined;
  name?: string | undefined;
  tradingName?: string | undefined;
  vatNumber?: string | undefined;
  /** BT-32: a tax registration other than VAT (Foretaksregisteret). */
  taxRegistrationId?: string | undefined;
  legalRegistration?: { id: string; schemeId?: string | undefined } | undefined;
  address?: BillingAddress | undefined;
  contact?:
    | { name?: string | undefined; telephone?: string | undefined; email?: string | undefined }
    | undefined;
}

export function readAddress(value: unknown): BillingAddress | undefined {
  if (!isPlainObject(value)) return undefined;
  return {
    street: text(value.streetNameAndNumber),
    additionalStreet: text(value.additionalStreetName),
    city: text(value.city),
    postalZone: text(value.postalZone),
    subentity: text(value.countrySubentity),
    country: text(value.countryCode),
  };
}

export function readParty(value: unknown): BillingParty {
  const p = object(value);
  const identifier = text(p.identifier);
  const colon = identifier?.indexOf(':') ?? -1;
  const registration = object(p.legalRegistration);
  const registrationId = text(registration.id);
  const contact = isPlainObject(p.contact) ? p.contact : undefined;
  return {
    endpoint:
      identifier === undefined || colon < 0
        ? undefined
        : { scheme: identifier.slice(0, colon), id: identifier.slice(colon + 1) },
    name: text(p.name),
    tradingName: text(p.tradingName),
    vatNumber: text(p.vatNumber),
    taxRegistrationId: text(p.taxRegistrationId),
    legalRegistration:
      registrationId === undefined
        ? undefined
        : { id: registrationId, schemeId: text(registration.schemeId) },
    address: readAddress(p.address),
    contact:
      contact === undefined
        ? undefined
        : {
            name: text(contact.name),
            telephone: text(contact.telephone),
            email: text(contact.email),
          },
  };
}
