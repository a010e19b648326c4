/** The owner's (or an admin's) edit of a test from its report: name, description, component, version and tags (PATCH /tests/<id>/). */
import { useState } from "react";
import { updateTest } from "../../../api/endpoints";
import type { TestEdit, TestMeta } from "../../../api/types";
import { errorText } from "../../../lib/errorText";

function parseTags(text: string): string[] {
  return [...new Set(text.split(",").map((t) => t.trim()).filter((t) => t !== ""))];
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
        setError(errorText(err));
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
