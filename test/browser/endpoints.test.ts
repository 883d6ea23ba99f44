/**
 * The console's Endpoints and Test event pages in Chromium, against a real consumer: an
 * endpoint's secret is shown once, a test event shows the consumer's answer (with the hint of
 * docs/webhook-endpoints.md#test-event-diagnostics when it is refused), a rotated secret keeps the consumer answering 204, and the
 * console asks for PROVIDER_ADMIN_TOKEN when the sandbox has one.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, screenshot } from './support/browser.ts';
import { PARTY } from './support/console-sandbox.ts';
import { useConsoleSession } from './support/console-session.ts';

const session = useConsoleSession();

/** Sends the previewed test event and waits for the result's status code. */
async function sendTestEvent(page: Page): Promise<{ status: string; time: string; text: string }> {
  const before = await page.getByTestId('status-code').count();
  // The page fetches its preview once it shows: a send compared with an empty one would take
  // the first preview's arrival for the result's.
  await page.waitForFunction(
    () => (document.querySelector('#test-event-preview')?.textContent ?? '') !== '',
  );
  const preview = await page.locator('#test-event-preview').textContent();
  await page.getByRole('button', { name: 'Send test event' }).click();
  // The preview is replaced by the next event once the result is in.
  await page.waitForFunction(
    (old) => document.querySelector('#test-event-preview')?.textContent !== old,
    preview,
  );
  // What the page said, when the send got no status code (a connection error, an API error).
  const said = await page.getByRole('status').allTextContents();
  expect(await page.getByTestId('status-code').count(), `the page said: ${said.join(' | ')}`).toBe(
    before === 0 ? 1 : before,
  );
  const result = page.getByRole('region', { name: 'Result' });
  return {
    status: (await page.getByTestId('status-code').textContent()) ?? '',
    time: (await page.getByTestId('response-time').textContent()) ?? '',
    text: (await result.textContent()) ?? '',
  };
}

/** A sandbox whose consumer is the endpoint `erp` (its secret made by the sandbox), in the console. */
async function consoleWithEndpoint(options?: Parameters<typeof session.startSandbox>[0]) {
  const sandbox = await session.startSandbox(options);
  sandbox.provider.provider.dispatcher.createEndpoint(PARTY, {
    name: 'erp',
    url: sandbox.consumer.webhookUrl,
  });
  return { sandbox, tab: await session.open(sandbox.provider.url) };
}

describeInBrowser('console: endpoints and test events', () => {
  it('creates an endpoint for a running consumer, shows its secret once, and a test event gets 401 with the hint, then 204', async () => {
    const sandbox = await session.startSandbox();
    const tab = await session.open(sandbox.provider.url);
    const { page } = tab;
    await page.getByText('No endpoint yet').waitFor();

    await page.getByLabel('Name').fill('erp');
    await page.getByLabel('URL').fill(sandbox.consumer.webhookUrl);
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const secretBox = page.getByLabel('Signing secret', { exact: true });
    const secret = await secretBox.inputValue();
    expect(secret).toMatch(/^whsec_[\w-]{43}$/);
    await page.getByText('Shown once:').waitFor();
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await screenshot(page, 'endpoints');

    // Shown once: gone after leaving the page, and nowhere in the list or the admin API.
    await page.getByRole('link', { name: 'Routing' }).click();
    await page.getByRole('heading', { name: 'Routing' }).waitFor();
    await page.getByRole('link', { name: 'Endpoints' }).click();
    // The Routing page, still shown for a moment, names `erp (its URL)` in two cells: wait for
    // the Endpoints page, then for the endpoint's row by its name.
    await page.getByRole('heading', { name: 'Endpoints', level: 1 }).waitFor();
    await page.getByRole('rowheader', { name: 'erp', exact: true }).waitFor();
    expect(await page.getByLabel('Signing secret', { exact: true }).count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    const listed = await fetch(`${sandbox.provider.url}/admin/participants/${PARTY}/endpoints`);
    expect(await listed.text()).not.toContain(secret);

    // The consumer does not know the secret yet: refused, and the console says what to check.
    await page.getByRole('link', { name: 'Send test event to erp' }).click();
    await page.getByRole('heading', { name: 'Send a test event' }).waitFor();
    expect(await page.getByLabel('Endpoint').inputValue()).not.toBe('');
    // The page asks the provider for the preview once it shows: wait for the body, not the
    // heading alone (read at once, it was sometimes still empty).
    await page.waitForFunction(() =>
      document.querySelector('#test-event-preview')?.textContent?.includes('"created"'),
    );
    const preview = JSON.parse((await page.locator('#test-event-preview').textContent()) ?? '');
    expect(preview).toMatchObject({ test: true, party: PARTY, action: 'created' });
    const refused = await sendTestEvent(page);
    expect(refused.status).toContain('401');
    expect(refused.text).toContain('check its signature verification');

    // The user puts the secret into WEBHOOK_SECRETS and restarts the consumer.
    await sandbox.restartConsumer(secret);
    await page.getByLabel('Action').selectOption('deliveryNotified');
    await page.waitForFunction(() =>
      document.querySelector('#test-event-preview')?.textContent?.includes('"deliveryNotified"'),
    );
    const accepted = await sendTestEvent(page);
    expect(accepted.status).toContain('204');
    expect(accepted.time).toMatch(/^\d+ ms$/);
    expect(accepted.text).not.toContain('What to check');
    await screenshot(page, 'test-event');
    expect(tab.errors).toEqual([]);
  });

  it('rotates a secret: the new one shown once with the old one’s time left; the consumer keeps answering 204', async () => {
    const sandbox = await session.startSandbox({
      consumerSecrets: 'whsec_first_secret_of_the_erp',
    });
    sandbox.provider.provider.dispatcher.createEndpoint(PARTY, {
      name: 'erp',
      url: sandbox.consumer.webhookUrl,
      secret: 'whsec_first_secret_of_the_erp',
    });
    const tab = await session.open(sandbox.provider.url);
    const { page } = tab;
    await page.getByRole('button', { name: 'Rotate secret of erp' }).click();
    await page.getByText('Rotate the signing secret of erp?').waitFor();
    await page.getByRole('button', { name: 'Rotate', exact: true }).click();
    const rotated = await page.getByLabel('Signing secret', { exact: true }).inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe('whsec_first_secret_of_the_erp');
    await page
      .getByText(/The previous secret stays valid until .* \((24 h 0 min|23 h 59 min) left\)/)
      .waitFor();
    await page
      .getByRole('cell', {
        name: /Rotated: the previous secret stays valid (24 h 0 min|23 h 59 min) more/,
      })
      .waitFor();

    // Before the consumer learns the new secret: both signatures are sent, the old one matches.
    await page.getByRole('link', { name: 'Send test event to erp' }).click();
    await page.getByRole('heading', { name: 'Send a test event' }).waitFor();
    expect((await sendTestEvent(page)).status).toContain('204');

    // The consumer configured with both secrets, as docs/how-it-works.md says for a rotation.
    await sandbox.restartConsumer(`${rotated},whsec_first_secret_of_the_erp`);
    const result = await sendTestEvent(page);
    expect(result.status).toContain('204');
    await page.getByText('Request sent').click();
    const signature = await page
      .getByRole('region', { name: 'Result' })
      .locator('pre')
      .first()
      .textContent();
    expect(signature).toMatch(/svc-webhook-signature: t=\d+,v0=[0-9a-f]{64},v0=[0-9a-f]{64}/);
    expect(tab.errors).toEqual([]);
  });

  it('shows where an endpoint cannot be reached: connection refused, with the hint', async () => {
    const sandbox = await session.startSandbox();
    sandbox.provider.provider.dispatcher.createEndpoint(PARTY, {
      name: 'nowhere',
      // Nothing listens on port 9 (discard) here.
      url: 'http://127.0.0.1:9/webhooks',
    });
    const tab = await session.open(`${sandbox.provider.url}/#/test-event`);
    const { page } = tab;
    await page.getByRole('heading', { name: 'Send a test event' }).waitFor();
    const result = await sendTestEvent(page);
    expect(result.status).toContain('ECONNREFUSED');
    expect(result.text).toContain('Is the consumer running?');
    expect(tab.errors).toEqual([]);
  });

  it('refuses an endpoint it cannot use, naming the field, and creates nothing', async () => {
    const sandbox = await session.startSandbox();
    const tab = await session.open(sandbox.provider.url);
    const { page } = tab;
    await page.getByLabel('Name').fill('erp');
    await page.getByLabel('URL').fill('ftp://example.com/hooks');
    await page.getByLabel('Credential').selectOption('header');
    await page.getByLabel('Header name').fill('Content-Type');
    await page.getByLabel('Header value').fill('x');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByText('The endpoint was not created').waitFor();
    expect(await page.getByLabel('URL').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByText('No endpoint yet').count()).toBe(1);
    expect(sandbox.provider.provider.dispatcher.listEndpoints(PARTY)).toEqual([]);
    expect(tab.errors).toEqual([]);
  });

  it('asks for PROVIDER_ADMIN_TOKEN when the sandbox has one, and refuses a wrong one', async () => {
    const { tab } = await consoleWithEndpoint({
      provider: { adminToken: 'console-admin-token-for-tests' },
    });
    const { page } = tab;
    await page.getByRole('heading', { name: 'Admin token' }).waitFor();
    expect(await page.getByText('erp').count()).toBe(0);
    await page.getByLabel('Admin token').fill('not-the-token');
    await page.getByRole('button', { name: 'Open the console' }).click();
    await page.getByText('The sandbox refused that token.').waitFor();
    await page.getByLabel('Admin token').fill('console-admin-token-for-tests');
    await page.getByRole('button', { name: 'Open the console' }).click();
    await page.getByRole('rowheader', { name: 'erp', exact: true }).waitFor();
    expect(tab.errors).toEqual([]);
  });

  it('is usable from the keyboard, and every control has a label', async () => {
    const { sandbox, tab } = await consoleWithEndpoint();
    const { page } = tab;
    await page.getByRole('rowheader', { name: 'erp', exact: true }).waitFor();
    // Skip link, then the five pages' links: Tab to "Test event" and open it with Enter.
    await page.keyboard.press('Tab');
    expect(await focusedText(page)).toBe('Skip to content');
    for (let i = 0; i < 4; i++) await page.keyboard.press('Tab');
    expect(await focusedText(page)).toBe('Test event');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Send a test event' }).waitFor();
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
    // On to the form: endpoint, category, action, then the send button.
    for (const [, label] of [
      [0, 'Endpoint'],
      [1, 'Event category'],
      [2, 'Action'],
    ] as const) {
      await page.keyboard.press('Tab');
      expect(await focusedLabel(page)).toBe(label);
    }
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await focusedText(page)).toBe('Send test event');
    await page.keyboard.press('Enter');
    await page.getByTestId('status-code').waitFor();

    for (const hash of ['#/endpoints', '#/routing', '#/deliveries', '#/test-event', '#/messages']) {
      await page.goto(`${sandbox.provider.url}/${hash}`);
      await page.locator('h1').first().waitFor();
      await page.waitForFunction(() => !document.querySelector('.loading'));
      expect(await unlabelledControls(page), hash).toEqual([]);
    }
    expect(tab.errors).toEqual([]);
  });
});

const focusedText = (page: Page) =>
  page.evaluate(() => document.activeElement?.textContent?.trim());
const focusedLabel = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement as HTMLInputElement | null;
    return element?.labels?.[0]?.textContent ?? element?.getAttribute('aria-label');
  });

/** Inputs, selects and text areas a screen reader would announce without a name. */
function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('input, select, textarea')]
      .filter((element) => {
        const control = element as HTMLInputElement;
        const named =
          (control.labels?.length ?? 0) > 0 ||
          control.getAttribute('aria-label') ||
          control.getAttribute('aria-labelledby');
        return !named && control.type !== 'hidden';
      })
      .map((element) => element.outerHTML.slice(0, 120)),
  );
}
