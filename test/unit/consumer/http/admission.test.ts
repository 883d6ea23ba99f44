import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createAdmission, IDLE_GRACE_MS } from '../../../../src/consumer/http/admission.ts';

/** A server and sockets as far as admission sees them: events, and destroy(). */
function fakeServer() {
  const server = new EventEmitter();
  const open = (name: string) => {
    const socket = Object.assign(new EventEmitter(), {
      name,
      destroyed: false,
      destroy() {
        socket.destroyed = true;
        socket.emit('close');
      },
    });
    server.emit('connection', socket);
    return socket;
  };
  /** A request starts on `socket`; returns the function that ends it. */
  const request = (socket: EventEmitter) => {
    const res = new EventEmitter();
    server.emit('request', { socket }, res);
    return () => res.emit('close');
  };
  return { server: server as unknown as Server, open, request };
}

describe('connections', () => {
  it('closes keep-alive connections between requests first, longest idle first, to make room', () => {
    let now = 0;
    const admission = createAdmission({ maxConnections: 2, maxInflightBytes: 100, now: () => now });
    const { server, open, request } = fakeServer();
    admission.watch(server);
    const a = open('a');
    const b = open('b');
    request(b)();
    now += 10;
    request(a)();
    // b has been idle longest; a new connection closes it, not a.
    const c = open('c');
    expect([a.destroyed, b.destroyed, c.destroyed]).toEqual([false, true, false]);
    expect(admission.stats().connections).toBe(2);
  });

  it('gives a new connection IDLE_GRACE_MS to send its head, then counts it as idle', () => {
    let now = 0;
    const admission = createAdmission({ maxConnections: 1, maxInflightBytes: 100, now: () => now });
    const { server, open, request } = fakeServer();
    admission.watch(server);
    const silent = open('silent');
    const early = open('early');
    expect([silent.destroyed, early.destroyed]).toEqual([false, false]);
    expect(admission.overConnectionLimit()).toBe(true);
    now += IDLE_GRACE_MS;
    const late = open('late');
    // Both older ones had their second; the one that never sent a head goes first, and the
    // other too, as the limit is one.
    expect([silent.destroyed, early.destroyed, late.destroyed]).toEqual([true, true, false]);
    const end = request(late);
    now += IDLE_GRACE_MS;
    open('next');
    // A connection with a request in progress is never closed to make room.
    expect(late.destroyed).toBe(false);
    expect(admission.overConnectionLimit()).toBe(true);
    end();
  });

  it('closes new connections outright from twice the limit', () => {
    const admission = createAdmission({ maxConnections: 1, maxInflightBytes: 100, now: () => 0 });
    const { server, open } = fakeServer();
    admission.watch(server);
    const sockets = [open('a'), open('b'), open('c')];
    expect(sockets.map((s) => s.destroyed)).toEqual([false, false, true]);
  });
});

describe('body bytes', () => {
  it('holds what a body sent, refuses an announced length that does not fit, gives back on release', () => {
    const admission = createAdmission({ maxConnections: 10, maxInflightBytes: 100 });
    const slow = admission.admit(100);
    expect(slow?.take(10)).toBe(true);
    expect(admission.stats().inflightBytes).toBe(10);
    expect(admission.admit(91)).toBeUndefined();
    const other = admission.admit(90);
    expect(other?.take(90)).toBe(true);
    expect(slow?.take(1)).toBe(false);
    slow?.release();
    slow?.release();
    expect(admission.stats().inflightBytes).toBe(90);
    other?.release();
    expect(admission.stats().inflightBytes).toBe(0);
  });
});
