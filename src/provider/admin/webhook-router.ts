/**
 * The webhook dispatcher's admin routes (endpoints, routing, delivery log, redelivery, test
 * events), mounted at /admin by provider.ts behind the admin token and the one JSON body
 * parser. The dispatcher knows no HTTP: errors it throws are answered by the provider's one
 * problem mapper (problem.ts).
 */
import { Router } from 'express';
import type { Dispatcher, EndpointInput, RuleInput } from '../webhooks/index.ts';
import { DeliveryNotFoundError } from '../webhooks/index.ts';
import {
  categorySchema,
  createEndpointSchema,
  defined,
  deliveriesQuerySchema,
  parseInput,
  parseParty,
  routingSchema,
  testEventPreviewSchema,
  testEventSchema,
} from './schemas.ts';

export function createWebhookRouter(dispatcher: Dispatcher): Router {
  const router = Router();

  router.post('/participants/:party/endpoints', (req, res) => {
    const party = parseParty(req.params.party);
    const input = defined(parseInput(createEndpointSchema, req.body)) as EndpointInput;
    const { endpoint, secret } = dispatcher.createEndpoint(party, input);
    res.status(201).json({
      id: endpoint.id,
      name: endpoint.name,
      url: endpoint.url,
      credentialType: endpoint.credentialType,
      createdAt: endpoint.createdAt,
      secret,
    });
  });

  router.get('/participants/:party/endpoints', (req, res) => {
    res.json(dispatcher.listEndpoints(parseParty(req.params.party)));
  });

  router.delete('/participants/:party/endpoints/:id', (req, res) => {
    dispatcher.deleteEndpoint(parseParty(req.params.party), req.params.id);
    res.status(204).end();
  });

  router.post('/participants/:party/endpoints/:id/rotate-secret', (req, res) => {
    res.json(dispatcher.rotateSecret(parseParty(req.params.party), req.params.id));
  });

  router.post('/participants/:party/endpoints/:id/test-event/preview', (req, res) => {
    const party = parseParty(req.params.party);
    const input = defined(parseInput(testEventPreviewSchema, req.body));
    res.json(dispatcher.previewTestEvent(party, req.params.id, input));
  });

  router.post('/participants/:party/endpoints/:id/test-event', async (req, res) => {
    const party = parseParty(req.params.party);
    const input = defined(parseInput(testEventSchema, req.body));
    res.json(await dispatcher.sendTestEvent(party, req.params.id, input));
  });

  router.get('/participants/:party/routing', (req, res) => {
    res.json(dispatcher.getRouting(parseParty(req.params.party)));
  });

  router.put('/participants/:party/routing/:category', (req, res) => {
    const party = parseParty(req.params.party);
    const category = parseInput(categorySchema, req.params.category);
    const { rules } = parseInput(routingSchema, req.body);
    dispatcher.setRules(
      party,
      category,
      rules.map((rule) => defined(rule) as RuleInput),
    );
    res.json(dispatcher.getRouting(party));
  });

  router.get('/participants/:party/deliveries', (req, res) => {
    const party = parseParty(req.params.party);
    res.json(dispatcher.deliveries(party, defined(parseInput(deliveriesQuerySchema, req.query))));
  });

  router.get('/deliveries/:eventId', (req, res) => {
    const view = dispatcher.delivery(req.params.eventId);
    if (view === undefined) throw new DeliveryNotFoundError(req.params.eventId);
    res.json(view);
  });

  router.post('/deliveries/:eventId/redeliver', (req, res) => {
    dispatcher.redeliver(req.params.eventId);
    res.status(202).json({ eventId: req.params.eventId, state: 'pending' });
  });

  return router;
}
