/** A laptop's screen and a phone's: the widths the specs are photographed at, and the window of each. */
import type { ViewportSize } from "@playwright/test";

export const LAPTOP = 1440;
export const PHONE = 390;
export const BOTH = [LAPTOP, PHONE] as const;

export function viewportAt(width: number): ViewportSize {
  return { width, height: width < 600 ? 844 : 900 };
}
