/**
 * The online pages' push channel: Server-Sent Events from `/api/v1/tests/<id>/live` (a report) or
 * `/api/v1/live?tests=…` (the list's online rows). Each `second` event carries the live figures of a second the
 * tank just pushed (by the server's figure rules); `stored` says the seconds up to one are stored (the charts may be
 * asked again; it brings the planned duration); `status` says the test's status changed. The browser's EventSource
 * reconnects by itself and names the last event it saw (Last-Event-ID), so the server resumes without a gap.
 *
 * Polling stays the fallback: `live` is false while the channel is not open (not yet, refused, or a server without
 * the channel, which answers a `fallback` event), and the pages then poll as before.
 */
import { useEffect, useRef, useState } from "react";

export interface LiveFigures {
  ts: number;
  rps: number;
  q95_ms: number | null;
  failed: number;
  error_share: number | null;
  elapsed_s: number;
  planned_s: number | null;
}

export interface LiveSecond {
  test: number;
  first_ts: number;
  last_ts: number;
  live: LiveFigures;
}

export interface LiveStored {
  test: number;
  first_ts: number;
  last_ts: number;
  status: string;
  planned_s: number | null;
}

export interface LiveStatus {
  test: number;
  status: string;
  stop_requested?: boolean;
}

export interface LiveHandlers {
  onSecond?: (event: LiveSecond, id: number) => void;
  onStored?: (event: LiveStored) => void;
  onStatus?: (event: LiveStatus) => void;
}

export interface LiveState {
  /** The channel is open: the page need not poll. */
  live: boolean;
  /** The newest `second` event of each test. */
  seconds: Record<number, LiveSecond>;
}

function parse<T>(data: unknown): T | null {
  try {
    return typeof data === "string" ? (JSON.parse(data) as T) : null;
  } catch {
    return null;
  }
}

/** Listens to `url` (null: not now). The handlers may change between renders without reconnecting. */
export function useLive(url: string | null, handlers: LiveHandlers = {}): LiveState {
  const [state, setState] = useState<LiveState>({ live: false, seconds: {} });
  const latest = useRef(handlers);
  latest.current = handlers;
  useEffect(() => {
    setState({ live: false, seconds: {} });
    if (url === null || typeof EventSource === "undefined") return;
    const source = new EventSource(url, { withCredentials: true });
    let closed = false;
    const stop = () => {
      closed = true;
      source.close();
      setState((s) => ({ ...s, live: false }));
    };
    source.onopen = () => setState((s) => ({ ...s, live: true }));
    source.onerror = () => {
      // CONNECTING: the browser reconnects by itself (and resumes); CLOSED: refused for good, poll instead.
      if (source.readyState === EventSource.CLOSED) stop();
      else setState((s) => ({ ...s, live: false }));
    };
    source.addEventListener("fallback", stop);
    const planned: Record<number, number | null> = {};
    source.addEventListener("second", (e) => {
      const event = parse<LiveSecond>((e as MessageEvent).data);
      if (!event || closed) return;
      // A pushed second does not know the planned duration: the last `stored` event told it.
      const live = { ...event.live, planned_s: event.live.planned_s ?? planned[event.test] ?? null };
      setState((s) => ({ live: true, seconds: { ...s.seconds, [event.test]: { ...event, live } } }));
      latest.current.onSecond?.(event, Number((e as MessageEvent).lastEventId));
    });
    source.addEventListener("stored", (e) => {
      const event = parse<LiveStored>((e as MessageEvent).data);
      if (!event || closed) return;
      planned[event.test] = event.planned_s;
      setState((s) => {
        const shown = s.seconds[event.test];
        if (!shown || shown.live.planned_s === event.planned_s) return s;
        return { ...s, seconds: { ...s.seconds, [event.test]: { ...shown, live: { ...shown.live, planned_s: event.planned_s } } } };
      });
      latest.current.onStored?.(event);
    });
    source.addEventListener("status", (e) => {
      const event = parse<LiveStatus>((e as MessageEvent).data);
      if (event && !closed) latest.current.onStatus?.(event);
    });
    return () => {
      closed = true;
      source.close();
    };
  }, [url]);
  return state;
}
