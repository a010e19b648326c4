/** What a failed request or action says to the reader: an Error's message, or whatever else was thrown, as text. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
