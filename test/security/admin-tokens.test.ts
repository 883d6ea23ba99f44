/**
 * Scoped operator tokens (issue 37, point 7). Before, ADMIN_TOKEN was the only one, so an ERP
 * that only sends invoices held the token that also replays events and reads every message.
 * Here, on the real consumer beside the simulator: each of ADMIN_TOKEN, ADMIN_SUBMIT_TOKEN and
 * ADMIN_READ_TOKEN does what its row of docs/operating.md#admin-tokens says, and gets 403 on
 * every other route; no token or an unknown one stays 401, and a scoped token alone turns
 * /admin on for what it may do.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../support/fork.ts';
import { eventually, type Sandbox, startSandboxForTest } from '../support/sandbox.ts';
import { exampleInvoice } from '../support/submissions.ts';

const TOKENS = {
  ADMIN_TOKEN: 'scoped-tokens-test-admin-token-0123456789',
  ADMIN_SUBMIT_TOKEN: 'scoped-tokens-test-submit-token-012345678',
  ADMIN_READ_TOKEN: 'scoped-tokens-test-read-token-0123456789',
} as const;
type TokenVariable = keyof typeof TOKENS;

/** Which tokens each route accepts: docs/operating.md's table, as a user reads it. */
const ROUTES: Record<string, readonly TokenVariable[]> = {
  'GET /admin/events': ['ADMIN_TOKEN', 'ADMIN_READ_TOKEN'],
  'POST /admin/events/:eventId/replay': ['ADMIN_TOKEN'],
  'GET /admin/messages/:messageId': ['ADMIN_TOKEN', 'ADMIN_READ_TOKEN'],
  'GET /admin/sink': ['ADMIN_TOKEN', 'ADMIN_READ_TOKEN'],
  'POST /admin/submissions': ['ADMIN_TOKEN', 'ADMIN_SUBMIT_TOKEN'],
  'GET /admin/submissions': ['ADMIN_TOKEN', 'ADMIN_SUBMIT_TOKEN', 'ADMIN_READ_TOKEN'],
  'GET /admin/submissions/:invoiceNo': ['ADMIN_TOKEN', 'ADMIN_SUBMIT_TOKEN', 'ADMIN_READ_TOKEN'],
};

async function call(
  s: Sandbox,
  route: string,
  token: string | undefined,
  params: Record<string, string>,
  body?: unknown,
) {
  const [method, pattern] = route.split(' ') as [string, string];
  const path = pattern.replace(/:(\w+)/g, (_, name: string) =>
    encodeURIComponent(params[name] ?? ''),
  );
  const res = await request(`${s.consumer.url}${path}`, {
    method: method as 'GET' | 'POST',
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text === '' ? undefined : JSON.parse(text) };
}

/** What a route answers its holder when allowed: its ordinary success. */
const SUCCESS: Record<string, number> = {
  'POST /admin/events/:eventId/replay': 202,
  'POST /admin/submissions': 202,
};

describe('scoped admin tokens', () => {
  it("each token can do exactly what its row says, and is refused 403 elsewhere, naming the route's tokens", async () => {
    const s = await startSandboxForTest({ consumerEnv: { ...TOKENS } });
    const messageId = await s.sendInboundInvoice();
    const eventId = await eventually(async () => {
      const { body } = await call(s, 'GET /admin/events', TOKENS.ADMIN_TOKEN, {});
      const items = body.items as { eventId: string; state: string; messageId: string }[];
      return items.find((e) => e.messageId === messageId && e.state === 'done')?.eventId;
    }, 'an event of the invoice handled');
    await call(s, 'POST /admin/submissions', TOKENS.ADMIN_TOKEN, {}, await invoice(s, 'SEEN-1'));

    for (const [route, accepted] of Object.entries(ROUTES)) {
      for (const variable of Object.keys(TOKENS) as TokenVariable[]) {
        // A new invoice number per attempt, so an allowed POST is a new submission (202).
        const invoiceNo = `${variable}-${route.length}`;
        const body = route === 'POST /admin/submissions' ? await invoice(s, invoiceNo) : undefined;
        const params = { eventId, messageId, invoiceNo: 'SEEN-1' };
        const answer = await call(s, route, TOKENS[variable], params, body);
        const what = `${route} with ${variable}`;
        if (accepted.includes(variable)) {
          expect(answer.status, what).toBe(SUCCESS[route] ?? 200);
          continue;
        }
        expect(answer.status, what).toBe(403);
        expect(answer.body.detail, what).toBe(
          `${route} accepts ${accepted.join(' or ')}, not ${variable}.`,
        );
        if (body !== undefined) {
          // Refused means refused: nothing stored under that number.
          const stored = await call(s, 'GET /admin/submissions/:invoiceNo', TOKENS.ADMIN_TOKEN, {
            invoiceNo,
          });
          expect(stored.status, what).toBe(404);
        }
      }
      // No token, or one that is none of the three: 401, as before.
      expect((await call(s, route, undefined, { eventId, messageId })).status).toBe(401);
      const unknown = `${TOKENS.ADMIN_TOKEN.slice(0, -1)}x`;
      expect((await call(s, route, unknown, { eventId, messageId })).status).toBe(401);
    }
  });

  it('turn /admin on alone, for what they may do: an ERP-only deployment holds no operator token', async () => {
    const s = await startSandboxForTest({
      consumerEnv: { ADMIN_TOKEN: '', ADMIN_SUBMIT_TOKEN: TOKENS.ADMIN_SUBMIT_TOKEN },
    });
    const sent = await call(
      s,
      'POST /admin/submissions',
      TOKENS.ADMIN_SUBMIT_TOKEN,
      {},
      await invoice(s, 'ALONE-1'),
    );
    expect(sent).toMatchObject({ status: 202, body: { invoiceNo: 'ALONE-1' } });
    expect((await call(s, 'GET /admin/events', TOKENS.ADMIN_SUBMIT_TOKEN, {})).status).toBe(403);
    // The operator's token is not set, so no value is it: a guess is as wrong as none.
    expect((await call(s, 'GET /admin/events', TOKENS.ADMIN_TOKEN, {})).status).toBe(401);
    expect((await call(s, 'GET /admin/events', undefined, {})).status).toBe(401);
  });

  it("match docs/operating.md's table of who may use which route", () => {
    const text = readFileSync(join(REPOSITORY_ROOT, 'docs/operating.md'), 'utf8');
    const section = text.slice(text.indexOf('<a id="admin-tokens"></a>'));
    const rows = [...section.matchAll(/^\| `([A-Z]+ \/admin[^`]*)` \|(.+)\|\s*$/gm)];
    const documented = Object.fromEntries(
      rows.map(([, route, cells]) => {
        const marks = (cells ?? '').split('|').map((cell) => cell.trim());
        const names = Object.keys(TOKENS) as TokenVariable[];
        return [route, names.filter((_, i) => marks[i] === 'yes')];
      }),
    );
    expect(documented).toEqual(ROUTES);
  });
});

async function invoice(s: Sandbox, invoiceNo: string) {
  return exampleInvoice(s.provider.url, invoiceNo);
}
