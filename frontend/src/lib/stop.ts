/**
 * What a stop does to this test's tank, before and after the click. A tank that sends the status call (Lunapark
 * mode: `stop_ends_shooting`) ends its shooting at its next call; an `overload:`-mode tank has no such call: it
 * shoots on to the end of its schedule, and only its data is refused.
 */
export function stopWords(endsShooting: boolean): { before: string; confirm: string; after: string } {
  if (endsShooting) {
    return {
      before: "Stop ends the tank's shooting at its next status call.",
      confirm: "The tank ends the shooting at its next status call (every few seconds) and exits as stopped from the web.",
      after: "stopping: the tank ends the shooting at its next status call",
    };
  }
  const outcome = "the tank will keep shooting until its schedule ends; its data will not be recorded";
  return {
    before: `This tank (overload: mode) cannot be stopped from here: after Stop, ${outcome}.`,
    confirm: `This tank (overload: mode) cannot be stopped from here: ${outcome}.`,
    after: `stopped recording: ${outcome}`,
  };
}

export const STOP_COLOUR = "#8e44ad";

/**
 * The stop's mark on the time charts: at the second the stop was asked, or at the last stored second when that is
 * earlier (the tank's seconds arrive a second or two after they end, so the last one recorded precedes the stop and
 * a mark past the data would fall outside the chart). Its label says which.
 */
export function stopMark(
  stoppedAt: number | null | undefined,
  lastTs: number | null,
  endsShooting: boolean,
): { ts: number; label: string; colour: string } | null {
  if (stoppedAt === null || stoppedAt === undefined) return null;
  const second = Math.floor(stoppedAt);
  const label = endsShooting ? "stopped from the web" : "stopped from the web: the tank shot on, not recorded";
  if (lastTs !== null && lastTs < second) return { ts: lastTs, label: `${label} (after this second)`, colour: STOP_COLOUR };
  return { ts: second, label, colour: STOP_COLOUR };
}
