/**
 * The sandbox's own scenario invoices between every two parties of a directory, as a user
 * makes them: the parties registered through POST /admin/participants, each invoice created
 * through POST /admin/messages/inbound (the simulator's sample, nothing overridden), its state
 * read from GET /admin/messages/{mid}, its core document fetched by its receiver from
 * GET /messages/{mid}/documents/core. Checked against the simulator's own validation by
 * test/integration/provider/scenario-countries.test.ts and against the official Peppol rules
 * by test/official/scenario-documents.test.ts.
 *
 * The messaging API acts for the sandbox participant only, so only an invoice the sandbox
 * sends or receives has a core document anyone can fetch. Every ordered pair is covered by
 * starting one sandbox per party of the directory, with that party as the sandbox participant
 * and the rest registered, and sending it an invoice from each of the others: a party is the
 * supplier once and the buyer once against every other party, of its own country and of
 * every other one.
 */
import { pino } from 'pino';
import type { Party, ValidationResult } from '../../src/protocol/index.ts';
import { createManualClock } from '../../src/provider/clock.ts';
import { DEMO_SUPPLIER } from '../../src/provider/model/index.ts';
import { DEFAULT_API_TOKEN, DEFAULT_PARTY, startProvider } from '../../src/provider/provider.ts';

const party = (identifier: string, name: string, countryCode: string): Party => ({
  identifier,
  name,
  countryCode,
});

/**
 * Two parties of each country whose national rules Peppol has or whose numbers the sandbox
 * forms (src/provider/national-numbers.ts), and the United States, which has no VAT. One of
 * each pair has an identifier that carries its VAT or register number; the other's does not
 * (a GLN, an OIN, a DUNS number), so the scenario invents that party's numbers.
 */
export const SCENARIO_DIRECTORY: readonly Party[] = [
  party(DEFAULT_PARTY, 'Sandbox Participant AS', 'NO'),
  DEMO_SUPPLIER,
  party('0007:5560000001', 'Svea Handel AB', 'SE'),
  party('0088:7300012345674', 'Göta Bygg AB', 'SE'),
  party('0184:12345678', 'Dansk Træ ApS', 'DK'),
  party('0088:5790012345675', 'Jysk Kunde A/S', 'DK'),
  party('0216:003723456780', 'Suomi Tuote Oy', 'FI'),
  party('0213:FI12345671', 'Tampereen Kone Oy', 'FI'),
  party('0196:4502032039', 'Norðurljós ehf.', 'IS'),
  party('0196:6112081979', 'Hekla hf.', 'IS'),
  party('9930:DE123456789', 'Muster GmbH', 'DE'),
  party('0088:4001234567891', 'Beispiel AG', 'DE'),
  party('0106:12345678', 'Polder BV', 'NL'),
  party('0190:00000001234567890000', 'Gemeente Voorbeeld', 'NL'),
  party('0208:0123456749', 'Brabant NV', 'BE'),
  party('9925:BE0765432146', 'Vlaanderen BV', 'BE'),
  party('0009:12345678900012', 'Lumière SARL', 'FR'),
  party('0002:732829320', 'Clinique du Parc SA', 'FR'),
  party('0211:IT12345678903', 'Roma Forniture S.r.l.', 'IT'),
  party('0088:8001234567897', 'Milano Moda S.p.A.', 'IT'),
  party('9920:ESB12345678', 'Islas SL', 'ES'),
  party('9920:ESA43210988', 'Iberia Comercial SA', 'ES'),
  party('9914:ATU54321096', 'Wiener Handel GmbH', 'AT'),
  party('0088:9001234567896', 'Alpen Holz KG', 'AT'),
  party('9933:123456783', 'Olympos AE', 'GR'),
  party('9933:998877666', 'Aigaio EPE', 'GR'),
  party('0088:5901234123457', 'Acme Inc.', 'US'),
  party('0060:123456789', 'Globex Corporation', 'US'),
];

export interface ScenarioDocument {
  /** `<supplier country> <supplier identifier> -> <customer country> <customer identifier>`. */
  name: string;
  supplier: Party;
  customer: Party;
  messageId: string;
  /** As GET /admin/messages/{mid} tells it once validation has run. */
  validationStatus: string;
  validationResults: ValidationResult[];
  /** The HTTP status of the receiver's GET /messages/{mid}/documents/core. */
  coreStatus: number;
  /** The core document (a UBL Invoice), or the problem answered instead. */
  xml: string;
}

export interface ScenarioRun {
  /** Each sandbox's GET /admin/participants, by the sandbox participant's identifier. */
  directories: Map<string, Party[]>;
  documents: ScenarioDocument[];
}

/** One sandbox per party of `directory`, each receiving a scenario invoice from every other. */
export async function scenarioDocuments(
  directory: readonly Party[] = SCENARIO_DIRECTORY,
): Promise<ScenarioRun> {
  const directories = new Map<string, Party[]>();
  const documents: ScenarioDocument[] = [];
  for (const receiver of directory) {
    const received = await receiveFromEveryone(receiver, directory);
    directories.set(receiver.identifier, received.directory);
    documents.push(...received.documents);
  }
  return { directories, documents };
}

async function receiveFromEveryone(
  receiver: Party,
  directory: readonly Party[],
): Promise<{ directory: Party[]; documents: ScenarioDocument[] }> {
  // A manual clock: validation runs when the test says, and every document has the same dates.
  const clock = createManualClock();
  const sandbox = await startProvider({
    party: receiver.identifier,
    partyName: receiver.name,
    partyCountryCode: receiver.countryCode,
    clock,
    logger: pino({ level: 'silent' }),
  });
  const call = async (path: string, init: { method?: string; body?: unknown; token?: string }) => {
    const res = await fetch(`${sandbox.url}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(init.token === undefined ? {} : { authorization: `Bearer ${init.token}` }),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    return { status: res.status, text: await res.text() };
  };
  const json = async <T>(path: string, init: { method?: string; body?: unknown } = {}) => {
    const res = await call(path, init);
    if (res.status >= 300)
      throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${res.text}`);
    return JSON.parse(res.text) as T;
  };
  try {
    const known = await json<{ items: Party[] }>('/admin/participants');
    for (const p of directory) {
      if (known.items.some((k) => k.identifier === p.identifier)) continue;
      await json('/admin/participants', { method: 'POST', body: p });
    }
    const { items } = await json<{ items: Party[] }>('/admin/participants');
    const senders = items.filter((p) => p.identifier !== receiver.identifier);
    const sent = await Promise.all(
      senders.map(async (supplier) => {
        const { messageId } = await json<{ messageId: string }>('/admin/messages/inbound', {
          method: 'POST',
          body: { from: supplier.identifier, to: receiver.identifier },
        });
        return { supplier, messageId };
      }),
    );
    clock.advance(0);
    const documents = await Promise.all(
      sent.map(async ({ supplier, messageId }): Promise<ScenarioDocument> => {
        const state = await json<{
          validationStatus: string;
          validationResults: ValidationResult[];
        }>(`/admin/messages/${messageId}`);
        const core = await call(`/messages/${messageId}/documents/core`, {
          token: DEFAULT_API_TOKEN,
        });
        return {
          name: `${supplier.countryCode} ${supplier.identifier} -> ${receiver.countryCode} ${receiver.identifier}`,
          supplier,
          customer: receiver,
          messageId,
          validationStatus: state.validationStatus,
          validationResults: state.validationResults,
          coreStatus: core.status,
          xml: core.text,
        };
      }),
    );
    return { directory: items, documents };
  } finally {
    await sandbox.close();
  }
}
