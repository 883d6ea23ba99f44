/**
 * The scenario admin API (mounted at /admin, no authentication: a sandbox tool). It drives
 * what on the real service other parties, the network or the management console do: inbound
 * invoices from counterparties, delivery outcomes, parking, retries, tax reports, payments,
 * rejections, and faults of the messaging API. Every change goes through the model, so it
 * produces exactly the events the real service would.
 */
import express, { type Request, Router } from 'express';
import type { CallLog } from '../api/call-log.ts';
import type { Clock } from '../clock.ts';
import type { FaultInjector } from '../faults.ts';
import { mergeOverrides, sampleInvoice } from '../invoice.ts';
import { DEMO_SUPPLIER, type ProviderMessage, type ProviderModel } from '../model/index.ts';
import {
  failSchema,
  faultSchema,
  inboundSchema,
  manualFailureSchema,
  parkSchema,
  parseBody,
  participantSchema,
  paymentSchema,
  rejectionSchema,
  retrySchema,
  taxReportSchema,
} from './schemas.ts';

export interface AdminRouterOptions {
  model: ProviderModel;
  clock: Clock;
  faults: FaultInjector;
  callLog: CallLog;
}

/** Everything the simulator knows about a message, for tests and the console. */
export function messageState(message: ProviderMessage) {
  const { deliveryTimer: _timer, ...state } = message;
  return state;
}

export function createAdminRouter(options: AdminRouterOptions): Router {
  const { model, clock } = options;
  const { messages, actions, participants } = model;
  const router = Router();
  // Per route, not router.use: the dispatcher's admin routes share /admin and parse their own.
  const json = express.json({ limit: '25mb' });
  let invoiceCounter = 0;

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

  router.post('/participants', json, (req, res) => {
    res.status(201).json(participants.add(parseBody(participantSchema, req.body)));
  });

  router.post('/messages/inbound', json, (req, res) => {
    const input = parseBody(inboundSchema, req.body);
    const from = input.from ?? DEMO_SUPPLIER.identifier;
    const to = input.to ?? participants.sandbox.identifier;
    invoiceCounter += 1;
    const sample = sampleInvoice({
      supplier: participants.get(from) ?? { identifier: from, name: from, countryCode: 'NO' },
      customer: participants.get(to) ?? { identifier: to, name: to, countryCode: 'NO' },
      invoiceNo: `INV-${String(invoiceCounter).padStart(5, '0')}`,
      issueDate: new Date(clock.now()).toISOString(),
    });
    const body = mergeOverrides(sample, {
      invoice: input.invoice ?? {},
      messageHandling: input.messageHandling ?? {},
    }) as typeof sample;
    const firstLine = body.invoice?.invoiceLines?.[0];
    // Off by one against taxable amount x rate: the validator's BR-CO-17 warning.
    if (input.warnings === true && firstLine !== undefined) firstLine.taxAmount += 1;
    const message = messages.submitInvoice({
      sender: from,
      body: body as unknown as Record<string, unknown>,
    });
    res.status(201).json({ messageId: message.id });
  });

  router.get('/messages/:mid', (req, res) => {
    res.json(messageState(messages.get(req.params.mid)));
  });

  router.post('/messages/:mid/deliver', json, (req, res) => {
    res.json(changed(req, (m) => messages.confirmDelivery(m.id)));
  });

  router.post('/messages/:mid/fail', json, (req, res) => {
    const input = parseBody(failSchema, req.body);
    res.json(changed(req, (m) => messages.failDelivery(m.id, input)));
  });

  router.post('/messages/:mid/park', json, (req, res) => {
    const input = parseBody(parkSchema, req.body);
    res.json(changed(req, (m) => messages.park(m.id, input.reason, input.transfer)));
  });

  router.post('/messages/:mid/pending-failure', json, (req, res) => {
    const input = parseBody(manualFailureSchema, req.body);
    res.json(changed(req, (m) => messages.holdFailure(m.id, input)));
  });

  router.post('/messages/:mid/conclude-failure', json, (req, res) => {
    const input = parseBody(manualFailureSchema, req.body);
    res.json(changed(req, (m) => messages.concludeFailure(m.id, input)));
  });

  router.post('/messages/:mid/retry', json, (req, res) => {
    const input = parseBody(retrySchema, req.body);
    res.json(changed(req, (m) => messages.retry(m.id, input.transfer)));
  });

  router.post('/messages/:mid/tax-report', json, (req, res) => {
    const input = parseBody(taxReportSchema, req.body);
    res.json(changed(req, (m) => actions.reportTax(m, input)));
  });

  router.post('/messages/:mid/payment', json, (req, res) => {
    const input = parseBody(paymentSchema, req.body);
    res.json(changed(req, (m) => actions.registerPayment(m, input)));
  });

  router.post('/messages/:mid/rejection', json, (req, res) => {
    const input = parseBody(rejectionSchema, req.body);
    res.json(changed(req, (m) => actions.registerRejection(m, input)));
  });

  router.get('/faults', (_req, res) => {
    res.json({ items: options.faults.list() });
  });

  router.post('/faults', json, (req, res) => {
    const fault = parseBody(faultSchema, req.body);
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
