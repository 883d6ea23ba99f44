import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../support/free-port.ts';

const listen = (port: number) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

describe('freePort', () => {
  it('gives a port a child can listen on, outside the range the kernel hands out itself', async () => {
    const ephemeralStart = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0],
    );
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(ephemeralStart);
    }
    const child = await listen(ports[0] as number);
    await new Promise((resolve) => child.close(resolve));
  });
});
