/** Slots of a table never fewer than this. */
const MIN_CAPACITY = 16;

/** FNV-1a over the UTF-16 code units: ids are short, and this runs only on a lookup, an insert or a delete. */
function hashOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * Items by their `id`: an open-addressing table (linear probing, deletion by backward shift) of the items
 * themselves, 0.25–0.5 full, so 16–32 bytes an item. A JavaScriptCore `Map` of 20,000 string keys held 170 bytes an
 * entry (56 at 100,000): the schedule's largest structure per monitor after its entries. Iteration order is
 * the table's, not insertion order.
 */
export class EntryTable<T extends { readonly id: string }> {
  private slots: (T | undefined)[] = new Array<T | undefined>(MIN_CAPACITY).fill(undefined);
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(id: string): T | undefined {
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let i = hashOf(id) & mask; ; i = (i + 1) & mask) {
      const item = slots[i];
      if (item === undefined || item.id === id) return item;
    }
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Adds the item, or puts it in place of the one with its id. */
  set(item: T): void {
    if (2 * (this.count + 1) > this.slots.length) this.resize(2 * this.slots.length);
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let i = hashOf(item.id) & mask; ; i = (i + 1) & mask) {
      const at = slots[i];
      if (at === undefined) {
        slots[i] = item;
        this.count++;
        return;
      }
      if (at.id === item.id) {
        slots[i] = item;
        return;
      }
    }
  }

  /** Takes out the item with this id; false if there was none. */
  delete(id: string): boolean {
    const slots = this.slots;
    const mask = slots.length - 1;
    let i = hashOf(id) & mask;
    for (; ; i = (i + 1) & mask) {
      const item = slots[i];
      if (item === undefined) return false;
      if (item.id === id) break;
    }
    slots[i] = undefined;
    this.count--;
    // Backward shift: move up each item of the run after the hole that may sit there (its home is not in (i, j]).
    for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
      const item = slots[j];
      if (item === undefined) break;
      const home = hashOf(item.id) & mask;
      const stays = i <= j ? i < home && home <= j : i < home || home <= j;
      if (stays) continue;
      slots[i] = item;
      slots[j] = undefined;
      i = j;
    }
    if (this.slots.length > MIN_CAPACITY && 8 * this.count < this.slots.length) this.resize(this.slots.length / 2);
    return true;
  }

  *values(): IterableIterator<T> {
    for (const item of this.slots) if (item !== undefined) yield item;
  }

  *keys(): IterableIterator<string> {
    for (const item of this.slots) if (item !== undefined) yield item.id;
  }

  private resize(capacity: number): void {
    const old = this.slots;
    this.slots = new Array<T | undefined>(capacity).fill(undefined);
    this.count = 0;
    for (const item of old) if (item !== undefined) this.set(item);
  }
}
