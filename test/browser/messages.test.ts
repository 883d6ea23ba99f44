/**
 * The console's Messages page in Chromium: an outbound invoice from the JSON editor with its
 * validation failures as a table (errors first), and the scenario actions of the admin API as
 * buttons on a received invoice, each showing its events, the new statuses, or the sandbox's
 * refusal.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, screenshot } from './support/browser.ts';
import { useConsoleSession } from './support/console-session.ts';

const session = useConsoleSession();

/** The statuses table of a message's page: side -> [delivery, tax reporting, lifecycle]. */
async function statuses(page: Page, transfer: 'inbound' | 'outbound'): Promise<string[]> {
  const cells = page.locator(`table.sides tr[data-transfer="${transfer}"] td`);
  return (await cells.allTextContents()).map((text) => text.trim());
}

/** Submits one scenario action's form and waits for the sandbox's answer to be shown. */
async function act(page: Page, action: string, inputs: Record<string, string> = {}) {
  const form = page.getByRole('form', { name: action, exact: true });
  for (const [label, value] of Object.entries(inputs)) {
    const control = form.getByLabel(label);
    if ((await control.evaluate((e) => e.tagName)) === 'SELECT') await control.selectOption(value);
    else await control.fill(value);
  }
  const status = page.locator('[role="status"]');
  const before = await status.textContent();
  await form.getByRole('button', { name: action, exact: true }).click();
  // The answer replaces the previous one, even when the same action is repeated.
  await page.waitForFunction(
    ([old, prefix]) => {
      const text = document.querySelector('[role="status"]')?.textContent ?? '';
      return text !== old && text.startsWith(prefix ?? '');
    },
    [before, `${action}:`],
  );
  return status.textContent();
}

describeInBrowser('console: messages', () => {
  it('submits an invoice from the JSON editor and shows what validation found, errors first', async () => {
    const sandbox = await session.startSandbox();
    const tab = await session.open(`${sandbox.provider.url}/#/messages`);
    const { page } = tab;
    const editor = page.getByLabel('Submit-invoice request body (JSON)');
    await page.waitForFunction(() =>
      document.querySelector('textarea')?.value.includes('"invoiceNo"'),
    );

    await editor.fill('{"invoice": ');
    await page.getByRole('button', { name: 'Submit invoice' }).click();
    await page.getByText('The editor does not hold valid JSON').waitFor();
    expect(await editor.getAttribute('aria-invalid')).toBe('true');

    // The example, with the currency and the supplier's name gone and a tax amount a cent off.
    const example = await (
      await fetch(`${sandbox.provider.url}/console/example-invoice.json`)
    ).json();
    delete example.invoice.currencyCode;
    delete example.invoice.supplier.name;
    example.invoice.invoiceLines[0].taxAmount += 0.01;
    await editor.fill(JSON.stringify(example, null, 2));
    await page.getByRole('button', { name: 'Submit invoice' }).click();
    const verdict = await page.getByText(/failed validation: \d+ errors/).textContent();
    const messageId = /Message (\S+) failed validation/.exec(verdict ?? '')?.[1] ?? '';

    const shown = await page
      .locator('table.validation-results tbody tr')
      .evaluateAll((rows) =>
        rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent ?? '')),
      );
    const found = sandbox.provider.provider.model.messages.get(messageId).validationResults;
    expect(shown).toEqual(found.map((r) => [r.type, r.code, r.message, r.location]));
    expect(shown.map(([type]) => type)).toEqual(['error', 'error', 'warning']);
    expect(shown.map(([, code]) => code)).toEqual(
      expect.arrayContaining(['BR-05', 'BR-06', 'SIM-IL-03']),
    );
    await screenshot(page, 'messages');

    await page.getByRole('link', { name: 'Open the message' }).click();
    await page.getByRole('heading', { name: 'Message INV-1001' }).waitFor();
    expect(await statuses(page, 'outbound')).toEqual(['failed', 'none', 'none']);
    expect(tab.errors).toEqual([]);
  });

  it('plays the other parties on a received invoice with the scenario buttons', async () => {
    const sandbox = await session.startSandbox();
    const tab = await session.open(`${sandbox.provider.url}/#/messages`);
    const { page } = tab;
    await page.getByLabel('With a validation warning (SIM-IL-03)').check();
    await page.getByRole('button', { name: 'Send me an invoice' }).click();
    await page.getByText(/is on its way/).waitFor();
    // Demo invoices are numbered per run (src/provider/admin/invoice-numbers.ts).
    await page
      .getByRole('link', { name: /INV-.+-00001/ })
      .first()
      .click();
    await page.getByRole('heading', { name: /Message INV-.+-00001/ }).waitFor();
    await page.locator('table.validation-results').getByText('SIM-IL-03').waitFor();
    expect(await statuses(page, 'inbound')).toEqual(['pendingdelivery', 'none', 'none']);

    expect(
      await act(page, 'Tax report', { Jurisdiction: 'Croatia', Outcome: 'electronic' }),
    ).toContain('taxReportingStatusChanged outbound none → electronic');
    // The sender's side is confirmed; the receiver's (ours) waits for our mark-as-delivered.
    expect(await act(page, 'Deliver')).toContain(
      'messageStatusChanged outbound pendingdelivery → delivered',
    );
    await page.waitForFunction(() =>
      document
        .querySelector('table.sides tr[data-transfer="outbound"]')
        ?.textContent?.includes('delivered'),
    );
    expect(await statuses(page, 'inbound')).toEqual(['pendingdelivery', 'electronic', 'none']);

    // What does not fit the message is the sandbox's call, shown in its words.
    expect(await act(page, 'Conclude failure')).toContain('only a pendingfailure can be concluded');
    expect(await act(page, 'Retry')).toContain('delivered → pendingdelivery');
    expect(await act(page, 'Pending failure')).toContain('pendingdelivery → pendingfailure');
    expect(await act(page, 'Conclude failure')).toContain('pendingfailure → failed');
    expect(await act(page, 'Payment', { 'Paid amount': '99.50' })).toContain(
      'lifecycleStatusChanged outbound none → paid',
    );
    expect(await act(page, 'Park', { Reason: 'duplicate of INV-00000' })).toContain('→ parked');
    await page.waitForFunction(() =>
      document
        .querySelector('table.sides tr[data-transfer="outbound"]')
        ?.textContent?.includes('parked'),
    );
    expect(await statuses(page, 'outbound')).toEqual(['parked', 'electronic', 'paid']);
    await page
      .getByRole('cell', { name: /reason: duplicate of INV-00000/ })
      .first()
      .waitFor();
    await screenshot(page, 'message');

    await page.getByRole('link', { name: 'This message in the delivery log' }).click();
    await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
    // No endpoint, no rules: every event is exhausted at once, with the reason.
    await page.getByText('not sent: the inbound category has no routing rules').first().waitFor();
    expect(tab.errors).toEqual([]);
  });
});
