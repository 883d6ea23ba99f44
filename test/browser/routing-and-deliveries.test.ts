/**
 * The console's Routing and Delivery log pages in Chromium, with a real consumer: an invalid
 * rule set shows its errors and saves nothing; a route that matches nothing exhausts an
 * invoice's events with the reason, and after the rule is fixed a redelivery brings them to the
 * consumer, which imports the invoice; retries show live, without a reload.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { documentFolder } from '../../src/consumer/importer/file-importer.ts';
import { WEBHOOK_RETRY_DELAYS_MS } from '../../src/protocol/index.ts';
import { createManualClock } from '../../src/provider/clock.ts';
import {
  ACTION_TIMEOUT_MS,
  describeInBrowser,
  screenshot,
  waitForText,
} from './support/browser.ts';
import { PARTY } from './support/console-sandbox.ts';
import { useConsoleSession } from './support/console-session.ts';

const SECRET = 'whsec_routing_tests_secret';

const session = useConsoleSession();

/** The delivery log's rows as the user reads them. */
function rows(page: Page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('tbody tr[data-event-id]')].map((row) => ({
      eventId: row.getAttribute('data-event-id') ?? '',
      state: row.getAttribute('data-state') ?? '',
      text: row.textContent ?? '',
    })),
  );
}

/** Waits until the delivery log's rows of `messageId` satisfy `check`, as the page updates itself. */
async function waitForRows(
  page: Page,
  check: (rows: { eventId: string; state: string; text: string }[]) => boolean,
  what: string,
) {
  const deadline = Date.now() + ACTION_TIMEOUT_MS;
  for (;;) {
    const current = await rows(page);
    if (check(current)) return current;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(current)}`);
    await page.waitForTimeout(50);
  }
}

/** Waits until the invoice's three events show exhausted; their rows. */
const threeExhausted = (page: Page) =>
  waitForRows(
    page,
    (r) => r.length === 3 && r.every((row) => row.state === 'exhausted'),
    'three exhausted events',
  );

describeInBrowser('console: routing and the delivery log', () => {
  it('shows an invalid rule set’s errors next to the rules and saves nothing', async () => {
    const sandbox = await session.startSandbox({ consumerSecrets: SECRET });
    const { dispatcher } = sandbox.provider.provider;
    dispatcher.createEndpoint(PARTY, { name: 'erp', url: sandbox.consumer.webhookUrl });
    const archive = dispatcher.createEndpoint(PARTY, {
      name: 'archive',
      url: `${sandbox.consumer.url}/archive`,
    }).endpoint;
    const before = dispatcher.getRouting(PARTY);
    const tab = await session.open(`${sandbox.provider.url}/#/routing`);
    const { page } = tab;

    await page.getByRole('button', { name: 'Add inbound messages rule' }).click();
    await page.getByRole('button', { name: 'Save inbound messages rules' }).click();
    await page.getByText('Nothing was saved. Fix these first:').waitFor();
    const inbound = page.getByRole('form', { name: 'Inbound messages' });
    for (const rule of [1, 2]) {
      await inbound
        .locator('tr.violation')
        .getByText(`rule ${rule}: a filter is required when a category has more than one rule`)
        .waitFor();
    }

    await page.getByLabel('Filter of Inbound messages, rule 1').fill('Invoice/*, Order/DOCX');
    await page.getByLabel('Filter of Inbound messages, rule 2').fill('*/XML');
    await page.getByLabel('Target of Inbound messages, rule 2').selectOption(archive.id);
    await page.getByRole('button', { name: 'Save inbound messages rules' }).click();
    await inbound
      .locator('tr.violation')
      .getByText('rule 1: "Order/DOCX" has format "DOCX"; use XML, JSON, PDF, EDI or *')
      .waitFor();
    // Rule 3 of docs/webhook-endpoints.md#routing: the overlap is shown under both rules it concerns.
    const overlap = inbound.locator('tr.violation', {
      hasText: 'rules 1 and 2 both cover Invoice/XML',
    });
    await overlap.nth(1).waitFor();
    expect(
      await page.getByLabel('Filter of Inbound messages, rule 2').getAttribute('aria-invalid'),
    ).toBe('true');
    await screenshot(page, 'routing');

    expect(dispatcher.getRouting(PARTY)).toEqual(before);
    await page.reload();
    await page.getByRole('heading', { name: 'Routing' }).waitFor();
    expect(await page.getByLabel('Filter of Inbound messages, rule 2').count()).toBe(0);
    expect(tab.errors).toEqual([]);
  });

  it('exhausts an invoice no rule matches, with the reason; after the fix a redelivery reaches the consumer, which imports it', async () => {
    const sandbox = await session.startSandbox({ consumerSecrets: SECRET });
    sandbox.provider.provider.dispatcher.createEndpoint(PARTY, {
      name: 'erp',
      url: sandbox.consumer.webhookUrl,
      secret: SECRET,
    });
    const tab = await session.open(`${sandbox.provider.url}/#/routing`);
    const { page } = tab;

    // Break the route: two rules, neither for invoices.
    await page.getByRole('button', { name: 'Add inbound messages rule' }).click();
    await page.getByLabel('Filter of Inbound messages, rule 1').fill('Order/*');
    await page.getByLabel('Filter of Inbound messages, rule 2').fill('CreditNote/*');
    await page.getByRole('button', { name: 'Save inbound messages rules' }).click();
    await page.getByText('Saved: 2 inbound messages rules.').waitFor();

    await page.getByRole('link', { name: 'Messages' }).click();
    await page.getByRole('button', { name: 'Send me an invoice' }).click();
    const sent = await page.getByText(/^Invoice .* is on its way/).textContent();
    const messageId = /Invoice (\S+) is on its way/.exec(sent ?? '')?.[1] ?? '';

    await page.getByRole('link', { name: 'Delivery log' }).click();
    const exhausted = await threeExhausted(page);
    for (const row of exhausted) {
      expect(row.text).toContain('not sent: no inbound routing rule matches Invoice/XML');
    }
    expect(
      exhausted.map(
        (row) => row.text.match(/(created|messageStatusChanged|deliveryNotified)/)?.[1],
      ),
    ).toEqual(['deliveryNotified', 'messageStatusChanged', 'created']);

    // Fix the rule, then redeliver each event, oldest first.
    await page.getByRole('link', { name: 'Routing' }).click();
    await page.getByLabel('Filter of Inbound messages, rule 1').fill('Invoice/*, Order/*');
    await page.getByRole('button', { name: 'Save inbound messages rules' }).click();
    await page.getByText('Saved: 2 inbound messages rules.').waitFor();
    await page.getByRole('link', { name: 'Delivery log' }).click();
    for (const { eventId } of [...exhausted].reverse()) {
      await page.getByRole('button', { name: `Redeliver event ${eventId.slice(0, 8)}` }).click();
      await page.getByText(`Event ${eventId.slice(0, 8)} is being redelivered`).waitFor();
    }

    // The same events (same ids) are delivered; the consumer imports the invoice and
    // acknowledges it, whose own status event shows up in the log by itself.
    const delivered = await waitForRows(
      page,
      (r) =>
        exhausted.every((old) =>
          r.some((row) => row.eventId === old.eventId && row.state === 'succeeded'),
        ) &&
        r.some(
          (row) =>
            row.state === 'succeeded' && !exhausted.some((old) => old.eventId === row.eventId),
        ),
      'the redelivered events and the acknowledgement',
    );
    expect(delivered.filter((row) => row.state === 'succeeded').length).toBeGreaterThanOrEqual(4);
    const documents = documentFolder(join(sandbox.consumer.dir, 'documents'), 'inbound', messageId);
    expect(existsSync(join(documents, 'manifest.json'))).toBe(true);

    const deliveryNotified = exhausted[0]?.eventId ?? '';
    await page
      .getByRole('button', { name: `Details of event ${deliveryNotified.slice(0, 8)}` })
      .click();
    const details = page.locator(`#details-${deliveryNotified}`);
    await details.getByText('status 204').waitFor();
    await details.getByText(`"eventId":"${deliveryNotified}"`).waitFor();
    await details.getByText('Headers sent in attempt 1').click();
    await details.getByText(/svc-webhook-signature: t=\d+,v0=[0-9a-f]{64}/).waitFor();
    await screenshot(page, 'delivery-log');

    await page.getByRole('link', { name: 'Messages' }).click();
    const inboundRow = page.locator(`tr[data-message-id="${messageId}"][data-transfer="inbound"]`);
    await inboundRow.getByText('delivered').waitFor();
    expect(tab.errors).toEqual([]);
  });

  it('shows retries as they happen, then exhausted with the last error, without a reload', async () => {
    const clock = createManualClock();
    // The consumer does not know the endpoint's (generated) secret: every attempt gets 401.
    const sandbox = await session.startSandbox({ consumerSecrets: SECRET, provider: { clock } });
    const { dispatcher } = sandbox.provider.provider;
    dispatcher.createEndpoint(PARTY, { name: 'erp', url: sandbox.consumer.webhookUrl });
    const tab = await session.open(`${sandbox.provider.url}/#/deliveries`);
    const { page } = tab;
    await waitForText(tab, 'No events yet');
    await page.evaluate(() => Object.assign(window, { notReloaded: true }));

    const res = await fetch(`${sandbox.provider.url}/admin/messages/inbound`, { method: 'POST' });
    expect(res.status).toBe(201);
    clock.advance(0);
    await dispatcher.idle();
    const retrying = await waitForRows(
      page,
      (r) => r.length === 3 && r.every((row) => row.text.includes('Retrying')),
      'three retrying events',
    );
    for (const row of retrying) {
      expect(row.text).toMatch(/next attempt 2026-01-05 09:01:00; last: status 401/);
    }

    for (const delay of WEBHOOK_RETRY_DELAYS_MS) {
      clock.advance(delay);
      await dispatcher.idle();
    }
    const exhausted = await threeExhausted(page);
    for (const row of exhausted) {
      expect(row.text).toContain('all 10 attempts failed; last: status 401');
    }
    expect(
      await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded),
    ).toBe(true);
    expect(tab.errors).toEqual([]);
  });
});
