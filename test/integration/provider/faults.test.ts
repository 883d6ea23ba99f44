import { describe, expect, it } from 'vitest';
import { testProviderForEachTest } from './helpers.ts';

const provider = testProviderForEachTest();

async function statuses(path: string, times: number): Promise<number[]> {
  const result: number[] = [];
  for (let i = 0; i < times; i++) result.push((await provider.api(path)).status);
  return result;
}

describe('fault injection', () => {
  it('answers the next N calls with 500, then normally', async () => {
    expect((await provider.admin('/faults', { count: 2, mode: '500' })).status).toBe(201);
    expect(await statuses('/messages', 3)).toEqual([500, 500, 200]);
  });

  it('503 carries Retry-After only when configured', async () => {
    await provider.admin('/faults', { count: 1, mode: '503', retryAfterSeconds: 7 });
    await provider.admin('/faults', { count: 1, mode: '503' });
    const first = await provider.api('/messages');
    const second = await provider.api('/messages');
    expect([first.status, first.headers.get('retry-after')]).toEqual([503, '7']);
    expect([second.status, second.headers.get('retry-after')]).toEqual([503, null]);
    expect(second.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await provider.api('/messages')).status).toBe(200);
  });

  it('429 carries Retry-After seconds and affects only the path prefix', async () => {
    await provider.admin('/faults', {
      count: 1,
      mode: '429',
      retryAfterSeconds: 3,
      pathPrefix: '/messages/',
    });
    expect((await provider.api('/messages')).status).toBe(200);
    const limited = await provider.api('/messages/some-id');
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '3']);
    expect((await provider.api('/messages/some-id')).status).toBe(404);
  });

  it('answers are dated by the simulator clock; undated leaves the Date header out', async () => {
    provider.clock.advance(1500);
    const dated = await provider.api('/messages');
    expect(Date.parse(dated.headers.get('date') ?? '')).toBe(
      Math.floor(provider.clock.now() / 1000) * 1000,
    );
    await provider.admin('/faults', { count: 1, mode: 'undated', pathPrefix: '/messages' });
    const undated = await provider.api('/messages');
    expect([undated.status, undated.headers.get('date')]).toEqual([200, null]);
    expect((await provider.api('/messages')).headers.get('date')).not.toBeNull();
  });

  it('hang never answers until the client gives up, and hangMs delays the answer', async () => {
    await provider.admin('/faults', { count: 1, mode: 'hang' });
    await expect(provider.api('/messages', { signal: AbortSignal.timeout(200) })).rejects.toThrow();
    expect((await provider.api('/messages')).status).toBe(200);

    await provider.admin('/faults', { count: 1, mode: 'hang', hangMs: 150 });
    const started = Date.now();
    expect((await provider.api('/messages')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('a hanging call does not keep the server from closing', async () => {
    await provider.admin('/faults', { count: 1, mode: 'hang' });
    const pending = provider.api('/messages').catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await provider.close();
    expect(await pending).toBeInstanceOf(Error);
  });

  it('DELETE /admin/faults clears what is left; faulted calls are recorded', async () => {
    await provider.admin('/faults', { count: 5, mode: '500' });
    expect((await provider.api('/messages')).status).toBe(500);
    expect((await provider.admin('/faults', undefined, 'DELETE')).status).toBe(204);
    expect((await provider.api('/messages')).status).toBe(200);
    const { items } = (await (await provider.admin('/api-calls', undefined, 'GET')).json()) as {
      items: { status: number }[];
    };
    expect(items.map((c) => c.status)).toEqual([500, 200]);
  });

  it('reset drops the connection without an answer, and the call is not acted upon', async () => {
    await provider.admin('/faults', { count: 1, mode: 'reset' });
    await expect(provider.api('/messages')).rejects.toThrow();
    expect((await provider.api('/messages')).status).toBe(200);
  });

  it('rate takes that share of matching calls, the same ones for the same seed', async () => {
    const run = async () => {
      await provider.admin('/faults', { count: 1000, mode: '500', rate: 0.3, seed: 42 });
      const seen = await statuses('/messages', 200);
      await provider.admin('/faults', undefined, 'DELETE');
      return seen;
    };
    const first = await run();
    const failed = first.filter((status) => status === 500).length;
    expect(failed).toBeGreaterThan(40);
    expect(failed).toBeLessThan(80);
    expect(await run()).toEqual(first);
  });

  it('rejects a fault with a bad mode, naming the field', async () => {
    const res = await provider.admin('/faults', { count: 1, mode: '418' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ field: 'mode' });
  });
});
