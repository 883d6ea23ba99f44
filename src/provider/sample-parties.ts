/**
 * The parties of a sample invoice (invoice.ts), and what their countries' rules add to it, so
 * that a scenario between any two participants of the sandbox's directory passes the
 * simulator's validation and the official Peppol BIS Billing 3.0 rules. The supplier's VAT
 * number is its country's (national-numbers.ts), each party has an address in its country,
 * and
 *
 * - a Danish or Icelandic supplier gives its registration (DK-R-002/014, IS-R-002), an
 *   Icelandic supplier its Icelandic buyer's too (IS-R-004);
 * - between German parties, the invoice has the payment instructions, buyer reference and
 *   seller contact the German rules require (DE-R-001, DE-R-015, DE-R-002/005/006/007);
 * - a Dutch supplier gives payment instructions (NL-R-007);
 * - a Greek supplier gives both parties' names (GR-R-002, GR-R-005), a Greek buyer's VAT
 *   number (GR-R-006) and an invoice number of the six segments GR-R-001 asks for. Its MARK
 *   number (GR-R-004-1) cannot be given: the submit-invoice body has no element for it, so the
 *   official rules still refuse a Greek supplier's scenario invoice for that one rule
 *   (docs/sandbox.md#scenario-invoices).
 *
 * Nothing else is added: between two Norwegian parties the sample is SPEC 2.1's minimal body.
 */
import type {
  InvoiceAddress,
  InvoiceCustomer,
  InvoiceData,
  InvoiceSupplier,
} from '../protocol/index.ts';
import { iban } from './billing/check-digits.ts';
import { nationalNumbers } from './national-numbers.ts';

export interface SampleParty {
  identifier: string;
  name: string;
  countryCode: string;
}

type Place = readonly [street: string, city: string, postalZone: string];

/** A supplier's and a customer's address in each country; others get SOMEWHERE. */
const PLACES: Readonly<Record<string, readonly [Place, Place]>> = {
  NO: [
    ['Storgata 1', 'Oslo', '0155'],
    ['Kongens gate 2', 'Bergen', '5003'],
  ],
  SE: [
    ['Drottninggatan 1', 'Stockholm', '111 51'],
    ['Kungsgatan 2', 'Göteborg', '411 19'],
  ],
  DK: [
    ['Strøget 1', 'København K', '1160'],
    ['Søndergade 2', 'Aarhus C', '8000'],
  ],
  FI: [
    ['Mannerheimintie 1', 'Helsinki', '00100'],
    ['Hämeenkatu 2', 'Tampere', '33100'],
  ],
  IS: [
    ['Laugavegur 1', 'Reykjavík', '101'],
    ['Hafnarstræti 2', 'Akureyri', '600'],
  ],
  DE: [
    ['Friedrichstraße 1', 'Berlin', '10117'],
    ['Marienplatz 2', 'München', '80331'],
  ],
  NL: [
    ['Damrak 1', 'Amsterdam', '1012 LG'],
    ['Coolsingel 2', 'Rotterdam', '3011 AD'],
  ],
  BE: [
    ['Wetstraat 1', 'Brussel', '1000'],
    ['Meir 2', 'Antwerpen', '2000'],
  ],
  FR: [
    ['1 rue de Rivoli', 'Paris', '75001'],
    ['2 rue de la République', 'Lyon', '69002'],
  ],
  IT: [
    ['Via del Corso 1', 'Roma', '00186'],
    ['Via Dante 2', 'Milano', '20121'],
  ],
  ES: [
    ['Calle Mayor 1', 'Madrid', '28013'],
    ['Passeig de Gràcia 2', 'Barcelona', '08007'],
  ],
  AT: [
    ['Kärntner Straße 1', 'Wien', '1010'],
    ['Getreidegasse 2', 'Salzburg', '5020'],
  ],
  GR: [
    ['Ermou 1', 'Athina', '105 63'],
    ['Tsimiski 2', 'Thessaloniki', '546 24'],
  ],
  US: [
    ['1 Main Street', 'Boston', '02108'],
    ['2 Market Street', 'San Francisco', '94105'],
  ],
};

const SOMEWHERE: readonly [Place, Place] = [
  ['Main Street 1', 'Capital City', '1000'],
  ['Main Street 2', 'Capital City', '1000'],
];

function address(party: SampleParty, role: 0 | 1): InvoiceAddress {
  const places = Object.hasOwn(PLACES, party.countryCode) ? PLACES[party.countryCode] : undefined;
  const [streetNameAndNumber, city, postalZone] = (places ?? SOMEWHERE)[role];
  return { streetNameAndNumber, city, postalZone, countryCode: party.countryCode };
}

/** The supplier and customer of a sample invoice, and what their countries add to it. */
export function sampleParties(options: {
  supplier: SampleParty;
  customer: SampleParty;
  invoiceNo: string;
  issueDate: string;
}): Pick<InvoiceData, 'invoiceNo' | 'supplier' | 'customer' | 'paymentMeans' | 'buyerReference'> {
  const from = options.supplier;
  const to = options.customer;
  const domestic = from.countryCode === to.countryCode;
  const supplierNumbers = nationalNumbers(from);
  const customerNumbers = nationalNumbers(to);
  const supplier: InvoiceSupplier = {
    vatNumber: supplierNumbers.vatNumber,
    name: from.name,
    identifier: from.identifier,
    address: address(from, 0),
    // DK-R-002, IS-R-002: a Danish or Icelandic supplier gives its registration.
    ...(supplierNumbers.legalRegistration === undefined
      ? {}
      : { legalRegistration: supplierNumbers.legalRegistration }),
  };
  const customer: InvoiceCustomer = {
    name: to.name,
    identifier: to.identifier,
    address: address(to, 1),
    // GR-R-006: a Greek supplier gives a Greek buyer's VAT number.
    ...(domestic && to.countryCode === 'GR' ? { vatNumber: customerNumbers.vatNumber } : {}),
    // IS-R-004: an Icelandic supplier gives an Icelandic buyer's kennitala.
    ...(domestic && to.countryCode === 'IS' && customerNumbers.legalRegistration !== undefined
      ? { legalRegistration: customerNumbers.legalRegistration }
      : {}),
  };
  const parties = { invoiceNo: options.invoiceNo, supplier, customer };
  const payTo = (bban: string) => ({
    code: '58',
    accountId: iban(from.countryCode, bban),
    accountName: from.name,
  });
  // The account numbers are made from the VAT number's digits, at a bank of the country.
  const vatDigits = supplier.vatNumber.replace(/\D/g, '').slice(0, 9).padStart(10, '0');
  if (domestic && from.countryCode === 'DE') {
    return {
      ...parties,
      supplier: {
        ...supplier,
        contact: {
          name: 'Buchhaltung',
          telephone: '+49 30 1234567',
          email: 'rechnung@example.com',
        },
      },
      buyerReference: `PO-${options.invoiceNo}`,
      paymentMeans: payTo(`37040044${vatDigits}`),
    };
  }
  if (from.countryCode === 'NL') return { ...parties, paymentMeans: payTo(`INGB${vatDigits}`) };
  if (from.countryCode === 'GR') {
    // GR-R-001: TIN | issue date DD/MM/YYYY | branch | document type 1.1 (sales invoice) |
    // series | number.
    const [year, month, day] = options.issueDate.slice(0, 10).split('-');
    const tin = supplier.vatNumber.slice(2);
    return {
      invoiceNo: `${tin}|${day}/${month}/${year}|0|1.1|SIM|${options.invoiceNo}`,
      supplier: { ...supplier, tradingName: from.name },
      customer: { ...customer, tradingName: to.name },
    };
  }
  return parties;
}
