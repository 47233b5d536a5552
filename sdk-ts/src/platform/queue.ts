/** A small unbounded async queue: `put` never waits, `get` waits for an item or the end. */

export class AsyncQueue<T> {
  private readonly items: T[] = [];
  private readonly waiters: ((item: T | null) => void)[] = [];
  private closed = false;

  public put(item: T): void {
    if (this.closed) return;
    const waiter = this.waiters.shift();
    if (waiter) waiter(item);
    else this.items.push(item);
  }

  /** The next item, or null once the queue is closed and empty. */
  public get(timeoutMs?: number): Promise<T | null | "timeout"> {
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve(item);
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter = (value: T | null): void => {
        clearTimeout(timer);
        resolve(value);
      };
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              const index = this.waiters.indexOf(waiter);
              if (index >= 0) this.waiters.splice(index, 1);
              resolve("timeout");
            }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** No more items: pending and later `get`s see the end once the queue is drained. */
  public close(): void {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter(null);
  }

  public get size(): number {
    return this.items.length;
  }
}
