/**
 * The scenario admin API, mounted at /admin by provider.ts behind the admin token and the one
 * JSON body parser; errors are answered by the provider's one problem mapper. It drives
 * what on the real service other parties, the network or the management console do: inbound
 * invoices from counterparties, delivery outcomes, parking, retries, tax reports, payments,
 * rejections, and faults of the messaging API. Every change goes through the model, so it
 * produces exactly the events the real service would.
 */
import { type Request, Router } from 'express';
import type { CallLog } from '../api/call-log.ts';
import type { Clock } from '../clock.ts';
import { InvalidRequestError, ParticipantNotFoundError } from '../errors.ts';
import type { FaultInjector } from '../faults.ts';
import { isPlainObject, mergeOverrides, sampleInvoice } from '../invoice.ts';
import { DEMO_SUPPLIER, type ProviderMessage, type ProviderModel } from '../model/index.ts';
import { createInvoiceNumbers } from './invoice-numbers.ts';
import { messageState, messageSummary } from './message-views.ts';
import {
  defined,
  failSchema,
  faultSchema,
  inboundSchema,
  manualFailureSchema,
  messageListSchema,
  outboundQuerySchema,
  parkSchema,
  parseInput,
  parseParty,
  participantSchema,
  participantSettingsSchema,
  paymentSchema,
  rejectionSchema,
  retrySchema,
  taxReportSchema,
} from './schemas.ts';

export interface ScenarioRouterOptions {
  model: ProviderModel;
  clock: Clock;
  faults: FaultInjector;
  callLog: CallLog;
}

export function createScenarioRouter(options: ScenarioRouterOptions): Router {
  const { model, clock } = options;
  const { messages, transitions, actions, participants } = model;
  const router = Router();
  const invoiceNumbers = createInvoiceNumbers(clock.now());

  /** Runs a change and answers with the events it produced. */
  function changed(req: Request, change: (message: ProviderMessage) => unknown) {
    const message = messages.get(String(req.params.mid));
    const before = message.events.length;
    const result = change(message);
    return {
      messageId: message.id,
      ...(typeof result === 'string' ? { actionMessageId: result } : {}),
      events: message.events.slice(before),
    };
  }

  router.get('/participants', (_req, res) => {
    res.json({ items: participants.list() });
  });

  router.post('/participants', (req, res) => {
    res.status(201).json(participants.add(parseInput(participantSchema, req.body)));
  });

  router.get('/participants/:party/settings', (req, res) => {
    const party = parseParty(req.params.party);
    if (participants.get(party) === undefined) throw new ParticipantNotFoundError(party);
    res.json(participants.settings(party));
  });

  router.put('/participants/:party/settings', (req, res) => {
    const changes = defined(parseInput(participantSettingsSchema, req.body));
    res.json(participants.updateSettings(parseParty(req.params.party), changes));
  });

  router.post('/messages/inbound', (req, res) => {
    const input = parseInput(inboundSchema, req.body);
    const from = input.from ?? DEMO_SUPPLIER.identifier;
    const to = input.to ?? participants.sandbox.identifier;
    const sample = sampleInvoice({
      supplier: participants.get(from) ?? { identifier: from, name: from, countryCode: 'NO' },
      customer: participants.get(to) ?? { identifier: to, name: to, countryCode: 'NO' },
      invoiceNo: invoiceNumbers.next(),
      issueDate: new Date(clock.now()).toISOString(),
    });
    const body = mergeOverrides(sample, {
      invoice: input.invoice ?? {},
      messageHandling: input.messageHandling ?? {},
    }) as typeof sample;
    const firstLine = body.invoice?.invoiceLines?.[0];
    // A cent off taxable amount x rate: the validator's SIM-IL-03 warning (the VAT breakdown
    // stays within BR-CO-17's tolerance of one currency unit, so no error).
    if (input.warnings === true && firstLine !== undefined) {
      firstLine.taxAmount = Math.round(firstLine.taxAmount * 100 + 1) / 100;
    }
    const message = messages.submitInvoice({
      sender: from,
      body: body as unknown as Record<string, unknown>,
      document: input.document,
      coreDocumentBytes: input.coreDocumentBytes,
    });
    res.status(201).json({ messageId: message.id });
  });

  router.get('/messages', (req, res) => {
    const { limit } = parseInput(messageListSchema, req.query);
    const newestFirst = messages.all().reverse().slice(0, limit);
    res.json({ items: newestFirst.map(messageSummary) });
  });

  // What the messaging API's submit-invoice does for the sandbox participant, without its
  // token: the console's "send an invoice".
  router.post('/messages/outbound', (req, res) => {
    const { more } = parseInput(outboundQuerySchema, req.query);
    if (!isPlainObject(req.body)) throw new InvalidRequestError('The body must be a JSON object.');
    const message = messages.submitInvoice({
      sender: participants.sandbox.identifier,
      body: req.body,
      more: more === 'true',
    });
    res.status(201).json({ messageId: message.id, status: message.sides.outbound?.status });
  });

  router.get('/messages/:mid', (req, res) => {
    res.json(messageState(messages.get(req.params.mid)));
  });

  router.post('/messages/:mid/deliver', (req, res) => {
    res.json(changed(req, (m) => transitions.confirmDelivery(m.id)));
  });

  router.post('/messages/:mid/fail', (req, res) => {
    const input = parseInput(failSchema, req.body);
    res.json(changed(req, (m) => transitions.failDelivery(m.id, input)));
  });

  router.post('/messages/:mid/park', (req, res) => {
    const input = parseInput(parkSchema, req.body);
    res.json(changed(req, (m) => transitions.park(m.id, input.reason, input.transfer)));
  });

  router.post('/messages/:mid/pending-failure', (req, res) => {
    const input = parseInput(manualFailureSchema, req.body);
    res.json(changed(req, (m) => transitions.holdFailure(m.id, input)));
  });

  router.post('/messages/:mid/conclude-failure', (req, res) => {
    const input = parseInput(manualFailureSchema, req.body);
    res.json(changed(req, (m) => transitions.concludeFailure(m.id, input)));
  });

  router.post('/messages/:mid/retry', (req, res) => {
    const input = parseInput(retrySchema, req.body);
    res.json(changed(req, (m) => transitions.retry(m.id, input.transfer)));
  });

  router.post('/messages/:mid/tax-report', (req, res) => {
    const input = parseInput(taxReportSchema, req.body);
    res.json(changed(req, (m) => actions.reportTax(m, input)));
  });

  router.post('/messages/:mid/payment', (req, res) => {
    const input = parseInput(paymentSchema, req.body);
    res.json(changed(req, (m) => actions.registerPayment(m, input)));
  });

  router.post('/messages/:mid/rejection', (req, res) => {
    const input = parseInput(rejectionSchema, req.body);
    res.json(changed(req, (m) => actions.registerRejection(m, input)));
  });

  router.get('/faults', (_req, res) => {
    res.json({ items: options.faults.list() });
  });

  router.post('/faults', (req, res) => {
    const fault = parseInput(faultSchema, req.body);
    options.faults.add(fault);
    res.status(201).json(fault);
  });

  router.delete('/faults', (_req, res) => {
    options.faults.clear();
    res.status(204).end();
  });

  router.get('/api-calls', (req, res) => {
    const messageId = typeof req.query.messageId === 'string' ? req.query.messageId : undefined;
    res.json({ items: options.callLog.list({ messageId }) });
  });

  return router;
}
