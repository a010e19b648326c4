/**
 * The one way a page keeps its state in the URL: a typed value parsed from the query string or the hash, kept in
 * step with Back/Forward, written back as one history entry per change (or in place, for normalising a link).
 * The report keeps its view in the hash (Overload's links), the list its filters in the query string.
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
): [T, (next: T) => void] {
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
    (next: T) => {
      const text = serialize(next);
      if (text !== current(part)) window.history.pushState(null, "", urlWith(part, text));
      setValue(parse(text));
    },
    [part, parse, serialize],
  );

  return [value, set];
}
