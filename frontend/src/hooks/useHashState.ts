/** The report's view state bound to location.hash: reads it, follows back/forward, writes changes back. */
import { useCallback, useEffect, useState } from "react";
import { parseViewState, serializeViewState, type ViewState } from "../lib/viewState";

export function useHashState(): [ViewState, (patch: Partial<ViewState>) => void] {
  const [state, setState] = useState<ViewState>(() => parseViewState(window.location.hash));

  useEffect(() => {
    // Normalise an Overload link (or no hash) to the full form once, without a history entry.
    const hash = serializeViewState(parseViewState(window.location.hash));
    if (window.location.hash.slice(1) !== hash) {
      window.history.replaceState(null, "", `${window.location.pathname}${window.location.search}#${hash}`);
    }
    const onHash = () => setState(parseViewState(window.location.hash));
    window.addEventListener("hashchange", onHash);
    window.addEventListener("popstate", onHash);
    return () => {
      window.removeEventListener("hashchange", onHash);
      window.removeEventListener("popstate", onHash);
    };
  }, []);

  const update = useCallback((patch: Partial<ViewState>) => {
    // The hash is the source of truth: derive the next state from it, write it, then mirror it in React.
    const next = { ...parseViewState(window.location.hash), ...patch };
    const hash = serializeViewState(next);
    if (hash !== window.location.hash.slice(1)) {
      // A new history entry per change, so Back returns to the previous window or tab as on Overload.
      window.history.pushState(null, "", `${window.location.pathname}${window.location.search}#${hash}`);
    }
    setState(parseViewState(hash));
  }, []);

  return [state, update];
}
