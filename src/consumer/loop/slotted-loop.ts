/**
 * A wakeable loop (wakeable-loop.ts) that keeps several items in hand at once, each in a slot
 * of its own: a turn claims as many due items as there are free slots and starts each, and an
 * item's end wakes the loop to fill its slot again. So an item that takes long (a status sink
 * whose ERP hangs, a submit the messaging API sits on) holds its own slot, and the others go
 * on in the rest. Used by the status sink's loop and the submission outbox's loop, whose
 * stores lease each claimed item to this process: every claimed item starts at once, so a
 * lease never runs while its item waits for a slot.
 */
import { createWakeableLoop } from './wakeable-loop.ts';

export interface SlottedLoopOptions<Item> {
  /** Items in hand at once, at most. */
  slots: number;
  /** How often the loop looks for due items when it was not woken. */
  pollMs: number;
  /** Claims up to `room` due items, each leased to this process. */
  claim(room: number): Promise<Item[]>;
  /** Works on one item and records its outcome; its end frees the slot. */
  run(item: Item): Promise<void>;
  /** claim() or run() threw (the store is away): told, and the loop goes on. */
  onError(error: unknown, during: 'claim' | 'run', item?: Item): void;
}

export interface SlottedLoop {
  start(): void;
  /** Runs the next turn now instead of at the next poll. */
  notify(): void;
  /** Stops claiming, then waits for the items in hand. */
  stop(): Promise<void>;
  /** How many items are in hand now. */
  inHand(): number;
}

export function createSlottedLoop<Item>(options: SlottedLoopOptions<Item>): SlottedLoop {
  const { slots } = options;
  const running = new Set<Promise<void>>();

  function begin(item: Item): void {
    const done: Promise<void> = options
      .run(item)
      .catch((error: unknown) => options.onError(error, 'run', item))
      .finally(() => {
        running.delete(done);
        loop.notify();
      });
    running.add(done);
  }

  const loop = createWakeableLoop(async () => {
    const room = slots - running.size;
    // Full: the next item to end wakes the loop.
    if (room <= 0) return false;
    let claimed: Item[];
    try {
      claimed = await options.claim(room);
    } catch (error) {
      options.onError(error, 'claim');
      return false;
    }
    for (const item of claimed) begin(item);
    // As many as there was room for: more may be due at once.
    return claimed.length >= room;
  }, options.pollMs);

  return {
    start: loop.start,
    notify: loop.notify,
    async stop() {
      await loop.stop();
      await Promise.all(running);
    },
    inHand: () => running.size,
  };
}
