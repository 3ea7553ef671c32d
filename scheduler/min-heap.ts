/** What a MinHeap holds: its key, and its place in the heap (-1: not in it), which only the heap sets. */
export interface HeapItem {
  due: number;
  slot: number;
}

/**
 * A binary min-heap of items ordered by `due`, each knowing its place in it: an item is moved or taken out where it
 * is, so the heap holds each item at most once and no stale copies (no wrapper object per entry, no lazy deletion).
 */
export class MinHeap<T extends HeapItem> {
  private items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** Puts the item in at `due`, or moves it there if it is in already. */
  set(item: T, due: number): void {
    const a = this.items;
    if (item.slot >= 0 && a[item.slot] === item) {
      const was = item.due;
      item.due = due;
      if (due < was) this.up(item.slot);
      else this.down(item.slot);
      return;
    }
    item.due = due;
    item.slot = a.length;
    a.push(item);
    this.up(item.slot);
  }

  pop(): T | undefined {
    const top = this.items[0];
    if (top) this.remove(top);
    return top;
  }

  /** Takes the item out if it is in. */
  remove(item: T): void {
    const a = this.items;
    const i = item.slot;
    if (i < 0 || a[i] !== item) return;
    item.slot = -1;
    const last = a.pop()!;
    if (i === a.length) return;
    a[i] = last;
    last.slot = i;
    this.up(i);
    this.down(last.slot);
  }

  clear(): void {
    for (const item of this.items) item.slot = -1;
    this.items = [];
  }

  private up(i: number): void {
    const a = this.items;
    const item = a[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = a[parent]!;
      if (p.due <= item.due) break;
      a[i] = p;
      p.slot = i;
      i = parent;
    }
    a[i] = item;
    item.slot = i;
  }

  private down(i: number): void {
    const a = this.items;
    const item = a[i]!;
    const n = a.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && a[r]!.due < a[l]!.due ? r : l;
      const child = a[c]!;
      if (child.due >= item.due) break;
      a[i] = child;
      child.slot = i;
      i = c;
    }
    a[i] = item;
    item.slot = i;
  }
}
