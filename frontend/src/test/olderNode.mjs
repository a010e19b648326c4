/**
 * Loaded into vitest's workers before jsdom (vite.config.ts `test.execArgv`). jsdom 31 and its undici are written for
 * Node 22+ (iterator helpers, zstd, worker_threads.markAsUncloneable); the machines that run the suite may still run
 * Node 20. Each piece is filled in only where it is missing, so on a current Node this file does nothing. jsdom only
 * constructs these (a zstd decoder, an uncloneable mark) at load: the component tests never reach them.
 */
import zlib from "node:zlib";
import workerThreads from "node:worker_threads";

if (typeof zlib.createZstdDecompress !== "function") {
  zlib.createZstdDecompress = () => {
    throw new Error("zstd needs Node 22.15 or later");
  };
  zlib.constants.ZSTD_d_windowLogMax ??= 31;
}
if (typeof workerThreads.markAsUncloneable !== "function") workerThreads.markAsUncloneable = () => undefined;

// The iterator helpers (ES2025), which jsdom's tree walkers extend and chain.
const iteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()));
if (typeof globalThis.Iterator === "undefined") {
  function Iterator() {}
  Iterator.prototype = iteratorPrototype;
  Object.defineProperty(globalThis, "Iterator", { value: Iterator, writable: true, configurable: true });
}
const helpers = {
  *map(fn) {
    let i = 0;
    for (const v of this) yield fn(v, i++);
  },
  *filter(fn) {
    let i = 0;
    for (const v of this) if (fn(v, i++)) yield v;
  },
  *take(n) {
    if (n <= 0) return;
    let i = 0;
    for (const v of this) {
      yield v;
      if (++i >= n) return;
    }
  },
  *drop(n) {
    let i = 0;
    for (const v of this) if (i++ >= n) yield v;
  },
  *flatMap(fn) {
    let i = 0;
    for (const v of this) yield* fn(v, i++);
  },
  reduce(fn, ...initial) {
    let i = 0;
    let empty = initial.length === 0;
    let acc = initial[0];
    for (const v of this) {
      if (empty) {
        acc = v;
        empty = false;
      } else acc = fn(acc, v, i);
      i++;
    }
    if (empty) throw new TypeError("Reduce of empty iterator with no initial value");
    return acc;
  },
  toArray() {
    return [...this];
  },
  forEach(fn) {
    let i = 0;
    for (const v of this) fn(v, i++);
  },
  some(fn) {
    let i = 0;
    for (const v of this) if (fn(v, i++)) return true;
    return false;
  },
  every(fn) {
    let i = 0;
    for (const v of this) if (!fn(v, i++)) return false;
    return true;
  },
  find(fn) {
    let i = 0;
    for (const v of this) if (fn(v, i++)) return v;
    return undefined;
  },
};
for (const [name, fn] of Object.entries(helpers)) {
  if (typeof iteratorPrototype[name] !== "function") {
    Object.defineProperty(iteratorPrototype, name, { value: fn, writable: true, configurable: true });
  }
}
