/**
 * The one way a page keeps its state in the URL: a typed value parsed from the query string or the hash, kept in
 * step with Back/Forward, written back as one history entry per change (or in place, for normalising a link).
 * The report and the compare page keep their views in the hash (Overload's names), the list its filters in the
 * query string; each page's codec (lib/viewState.ts, lib/compareView.ts, lib/listQuery.ts) reads every older form
 * of its links, and `normalise` rewrites such a link in the current form.
 */
import { useCallback, useEffect, useState } from "react";

export type UrlPart = "search" | "hash";

export interface UrlCodec<T> {
  parse: (text: string) => T;
  /** The part's text without its leading `?` or `#`; empty for the default state. */
  serialize: (value: T) => string;
}

function current(part: UrlPart): string {
  const raw = part === "hash" ? window.location.hash : window.location.search;
  return raw.replace(/^[?#]/, "");
}

function urlWith(part: UrlPart, text: string): string {
  const { pathname, search, hash } = window.location;
  if (part === "hash") return `${pathname}${search}${text ? `#${text}` : ""}`;
  return `${pathname}${text ? `?${text}` : ""}${hash}`;
}

export function useUrlState<T>(
  part: UrlPart,
  codec: UrlCodec<T>,
  { normalise = false }: { normalise?: boolean } = {},
): [T, (next: T | ((now: T) => T)) => void] {
  const { parse, serialize } = codec;
  const [value, setValue] = useState<T>(() => parse(current(part)));

  useEffect(() => {
    if (normalise) {
      // An old or partial link is rewritten once in the full form, without a history entry.
      const text = serialize(parse(current(part)));
      if (text !== current(part)) window.history.replaceState(null, "", urlWith(part, text));
    }
    const onChange = () => setValue(parse(current(part)));
    window.addEventListener("popstate", onChange);
    if (part === "hash") window.addEventListener("hashchange", onChange);
    return () => {
      window.removeEventListener("popstate", onChange);
      if (part === "hash") window.removeEventListener("hashchange", onChange);
    };
  }, [part, parse, serialize, normalise]);

  const set = useCallback(
    // A function applies to what the URL says now, not to a render's possibly older state (e.g. a debounced slider).
    (next: T | ((now: T) => T)) => {
      const value = typeof next === "function" ? (next as (now: T) => T)(parse(current(part))) : next;
      const text = serialize(value);
      if (text !== current(part)) window.history.pushState(null, "", urlWith(part, text));
      setValue(parse(text));
    },
    [part, parse, serialize],
  );

  return [value, set];
}
