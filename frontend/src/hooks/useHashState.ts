/** The report's view state in location.hash (Overload's names), through the one URL-state hook. */
import { useCallback } from "react";
import { parseViewState, serializeViewState, type ViewState } from "../lib/viewState";
import { useUrlState, type UrlCodec } from "./useUrlState";

const VIEW: UrlCodec<ViewState> = { parse: parseViewState, serialize: serializeViewState };

export function useHashState(): [ViewState, (patch: Partial<ViewState>) => void] {
  const [state, set] = useUrlState("hash", VIEW, { normalise: true });
  // A patch applies to what the hash says now, not to a render's possibly older state.
  const update = useCallback(
    (patch: Partial<ViewState>) => set({ ...parseViewState(window.location.hash), ...patch }),
    [set],
  );
  return [state, update];
}
