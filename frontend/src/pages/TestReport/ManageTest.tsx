/**
 * What the owner (or an admin) does to a test from its report: edit its name, description, component, version
 * and tags (PATCH /tests/<id>/), delete it (DELETE, then back to the list), and stop an online test
 * (POST /tests/<id>/stop: the tank's next call is answered so that it ends the shooting as stopped from the web).
 */
import { useState } from "react";
import { deleteTest, stopTest, updateTest } from "../../api/endpoints";
import type { TestEdit, TestMeta } from "../../api/types";
import { stopWords } from "../../lib/stop";

function parseTags(text: string): string[] {
  return [...new Set(text.split(",").map((t) => t.trim()).filter((t) => t !== ""))];
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function EditTestForm({
  test,
  onSaved,
  onCancel,
}: {
  test: TestMeta;
  onSaved: (test: TestMeta) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState({
    name: test.name ?? "",
    description: test.description ?? "",
    component: test.component ?? "",
    version: test.version ?? "",
    tags: (test.tags ?? []).join(", "),
  });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const set = (k: keyof typeof draft) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [k]: e.target.value }));
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    const patch: TestEdit = { ...draft, tags: parseTags(draft.tags) };
    updateTest(test.id, patch).then(
      (saved) => {
        setBusy(false);
        onSaved(saved);
      },
      (err: unknown) => {
        setBusy(false);
        setError(message(err));
      },
    );
  };
  return (
    <form className="edit-test card" aria-label="Edit the test" onSubmit={submit}>
      <label>
        Name
        <input type="text" name="name" maxLength={512} value={draft.name} onChange={set("name")} />
      </label>
      <label>
        Component
        <input type="text" name="component" maxLength={256} value={draft.component} onChange={set("component")} />
      </label>
      <label>
        Version
        <input type="text" name="version" maxLength={256} value={draft.version} onChange={set("version")} />
      </label>
      <label className="wide">
        Tags <span className="hint">comma-separated</span>
        <input type="text" name="tags" value={draft.tags} onChange={set("tags")} placeholder="release, baseline" />
      </label>
      <label className="wide">
        Description
        <textarea name="description" rows={3} value={draft.description} onChange={set("description")} />
      </label>
      {error && (
        <p className="state error wide" role="alert">
          Not saved: {error}
        </p>
      )}
      <div className="buttons wide">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? "Saving…" : "Save"}
        </button>
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export function DeleteTestButton({ test }: { test: TestMeta }) {
  const [error, setError] = useState<string | null>(null);
  const remove = () => {
    if (!window.confirm(`Delete test #${test.id} and all its data? This cannot be undone.`)) return;
    deleteTest(test.id).then(
      () => window.location.assign("/"),
      (e: unknown) => setError(message(e)),
    );
  };
  return (
    <>
      <button type="button" className="danger" onClick={remove}>
        Delete
      </button>
      {error && (
        <span className="state error inline" role="alert">
          Not deleted: {error}
        </span>
      )}
    </>
  );
}

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
        setError(message(e));
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
