/** The reader's choice of local time or UTC (lib/timeZone.ts); components re-render when it changes. */
import { useSyncExternalStore } from "react";
import { subscribeTimeZone, timeZoneMode, type TimeZoneMode } from "../lib/timeZone";

export function useTimeZone(): TimeZoneMode {
  return useSyncExternalStore(subscribeTimeZone, timeZoneMode, timeZoneMode);
}
