/**
 * Stops an online test (POST /tests/<id>/stop): the tank's next call is answered so that it ends the shooting as
 * stopped from the web.
 */
import { useState } from "react";
import { stopTest } from "../../../api/endpoints";
import type { TestMeta } from "../../../api/types";
import { errorText } from "../../../lib/errorText";
import { stopWords } from "../../../lib/stop";

/** Shown on an online test to whoever may change it; "stopping" once asked (or when the API says so). */
export function StopButton({ test }: { test: TestMeta }) {
  const [state, setState] = useState<"idle" | "sending" | "stopping">(test.stop_requested ? "stopping" : "idle");
  const [error, setError] = useState<string | null>(null);
  const stopping = state === "stopping" || Boolean(test.stop_requested);
  const words = stopWords(Boolean(test.stop_ends_shooting));
  const stop = () => {
    if (!window.confirm(`Stop test #${test.id}? ${words.confirm}`)) return;
    setState("sending");
    setError(null);
    stopTest(test.id).then(
      () => setState("stopping"),
      (e: unknown) => {
        setState("idle");
        setError(errorText(e));
      },
    );
  };
  return (
    <>
      <button
        type="button"
        className="danger stop"
        onClick={stop}
        disabled={stopping || state === "sending"}
        data-stop-state={stopping ? "stopping" : state}
        data-stop-ends-shooting={test.stop_ends_shooting ? "yes" : "no"}
        aria-describedby={`stop-words-${test.id}`}
      >
        {stopping ? "Stopping…" : state === "sending" ? "Stopping…" : "Stop the test"}
      </button>
      <span className="hint stop-words" id={`stop-words-${test.id}`} role="status">
        {stopping ? words.after : words.before}
      </span>
      {error && (
        <span className="state error inline" role="alert">
          Not stopped: {error}
        </span>
      )}
    </>
  );
}
