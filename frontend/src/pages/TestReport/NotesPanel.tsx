/**
 * Notes on the test's timeline: its owner (or an admin) marks a second with a text ("deploy started", "GC
 * pause"); everyone who may read the test sees it as a blue line on every time chart. Clicking a point of a time chart picks that second for a new note.
 */
import { useEffect, useState } from "react";
import { addNote, deleteNote, getNotes } from "../../api/endpoints";
import type { Note } from "../../api/types";
import type { ChartMark } from "../../components/charts/PlotlyFigure";
import { refreshTest, testKey, useApi } from "../../hooks/useApi";
import { formatUnix, parseDateTime } from "../../lib/format";
import { errorText } from "../../lib/errorText";

export const NOTE_COLOUR = "#1f6feb";

export function useNotes(testId: number): { notes: Note[]; marks: ChartMark[]; reload: () => void } {
  const answer = useApi(testKey(testId, "notes"), (signal) => getNotes(testId, signal));
  const notes = answer.data ?? [];
  return {
    notes,
    marks: notes.map((n) => ({ ts: n.ts, label: n.text, colour: NOTE_COLOUR })),
    reload: () => void refreshTest(testId, "notes"),
  };
}

export function NotesPanel({
  testId,
  notes,
  bounds,
  picked,
  canAdd,
  onChanged,
}: {
  testId: number;
  notes: Note[];
  bounds: { first: number; last: number };
  picked: number | null;
  canAdd: boolean;
  onChanged: () => void;
}) {
  const [when, setWhen] = useState(() => formatUnix(picked ?? bounds.first));
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (picked !== null) setWhen(formatUnix(picked));
  }, [picked]);

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const ts = parseDateTime(when);
    if (ts === null) return setError("the time must read YYYY-MM-DD HH:MM:SS");
    if (ts < bounds.first || ts > bounds.last)
      return setError(`the time must be inside the test: ${formatUnix(bounds.first)} – ${formatUnix(bounds.last)}`);
    if (!text.trim()) return setError("write what happened at that second");
    addNote(testId, ts, text.trim()).then(
      () => {
        setText("");
        setError(null);
        onChanged();
      },
      (err: unknown) => setError(errorText(err)),
    );
  };
  const remove = (note: Note) =>
    deleteNote(testId, note.id).then(onChanged, (err: unknown) => setError(errorText(err)));

  if (!canAdd && notes.length === 0) return null;
  return (
    <details className="notes card" open={notes.length > 0}>
      <summary>
        <h2>Notes on the timeline {notes.length > 0 && <span className="hint">({notes.length})</span>}</h2>
      </summary>
      {notes.length > 0 && (
        <ul className="note-list">
          {notes.map((n) => (
            <li key={n.id} data-note={n.id}>
              <time className="num">{formatUnix(n.ts)}</time> <span className="note-text">{n.text}</span>{" "}
              {n.author && <span className="hint">— {n.author}</span>}{" "}
              {n.can_delete && (
                <button type="button" className="link" onClick={() => void remove(n)} aria-label={`Delete the note “${n.text}”`}>
                  delete
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {canAdd ? (
        <form className="note-form" onSubmit={submit} aria-label="Add a note">
          <label>
            Second
            <input type="text" name="note-time" value={when} onChange={(e) => setWhen(e.target.value)} inputMode="numeric" />
          </label>
          <label className="grow">
            Note
            <input type="text" name="note-text" maxLength={500} value={text} onChange={(e) => setText(e.target.value)} placeholder="what happened then" />
          </label>
          <button type="submit" className="primary">
            Add note
          </button>
          <p className="hint wide">Tip: click a point on a time chart to pick its second.</p>
        </form>
      ) : (
        <p className="hint">Notes are added by the test's owner.</p>
      )}
      {error && (
        <p className="state error" role="alert">
          {error}
        </p>
      )}
    </details>
  );
}
