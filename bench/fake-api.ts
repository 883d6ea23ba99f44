/**
 * A fast stand-in for the messaging API, for scenario (d) (the consumer with its worker handling
 * every event at full ingress speed): the embedded provider would need each message created
 * first and would spend its core building UBL documents. This answers any message id at once:
 * a descriptor, a small core document, the transaction JSON, 204 to mark-as-delivered. A fake,
 * named as one: the backlog drain runs against the real simulator.
 */
import { createServer } from 'node:http';
import { descriptorOf } from '../test/support/descriptors.ts';
import { closeServer, listenOnLoopback } from '../test/support/loopback-server.ts';
import { serveControl } from './server-control.ts';

const CORE = Buffer.from(
  `<?xml version="1.0" encoding="UTF-8"?>\n<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><ID>INV-1</ID>${'<Note>line</Note>'.repeat(80)}</Invoice>\n`,
);
const TRANSACTION = Buffer.from(JSON.stringify({ invoice: { invoiceNo: 'INV-1', lines: 3 } }));
const party = { identifier: '0192:999999999', name: 'Sandbox Participant AS', countryCode: 'NO' };

function descriptor(id: string, transfer: string) {
  const fields = {
    uniqueId: id,
    timeReceived: '2026-11-23T09:00:00Z',
    transfer: transfer as 'inbound',
  };
  return Buffer.from(
    JSON.stringify(descriptorOf({ ...fields, originParty: party, destinationParty: party })),
  );
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://fake');
  const parts = url.pathname.split('/');
  req.resume();
  const send = (status: number, type: string, body?: Buffer) => {
    res.writeHead(
      status,
      body === undefined ? {} : { 'content-type': type, 'content-length': body.length },
    );
    res.end(body);
  };
  if (req.method === 'POST') return send(204, '');
  if (parts[1] === 'messages' && parts[3] === 'documents')
    return send(200, 'application/xml', CORE);
  if (parts[1] === 'messages' && parts[2] !== undefined) {
    return send(
      200,
      'application/json',
      descriptor(parts[2], url.searchParams.get('transfer') ?? 'inbound'),
    );
  }
  if (parts[1] === 'transactions') return send(200, 'application/json', TRANSACTION);
  send(404, 'application/json', Buffer.from('{}'));
});
serveControl(await listenOnLoopback(server), () => closeServer(server));
