/**
 * Where this component's news goes: the user's subscriptions (stop one), and a form that subscribes one of their
 * targets, or a new one (Slack-compatible, Teams, Telegram, signed webhook), to the events chosen. A new
 * webhook's signing key is shown once. The server decides who may subscribe (the maintainers of its project); the page shows this panel to them only.
 */
import { useState } from "react";
import {
  createTarget,
  listSubscriptions,
  listTargets,
  subscribe,
  unsubscribe,
  type TargetKind,
} from "../../api/regressions";
import { ErrorBox, Loading } from "../../components/States";
import { useAction } from "../../hooks/useAction";
import { errorText } from "../../lib/errorText";
import { componentKey, queryClient, refreshComponent, useApi } from "../../hooks/useApi";

export const EVENTS: [string, string][] = [
  ["regression_found", "regression found"],
  ["test_failed", "test failed"],
  ["test_finished", "test finished"],
];

const KINDS: [TargetKind, string][] = [
  ["slack", "Slack, Mattermost, Rocket.Chat"],
  ["teams", "Teams incoming webhook"],
  ["teams_workflow", "Teams Workflows"],
  ["telegram", "Telegram bot"],
  ["webhook", "Signed JSON webhook"],
];

const TARGETS_KEY = ["notify-targets"];

export function NotifyPanel({ component, project }: { component: string; project: string }) {
  const targets = useApi(TARGETS_KEY, (signal) => listTargets(signal));
  const subs = useApi(componentKey(project, component, "subscriptions"), (signal) =>
    listSubscriptions(component, project, signal),
  );
  const [targetId, setTargetId] = useState("new");
  const [kind, setKind] = useState<TargetKind>("slack");
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [token, setToken] = useState("");
  const [chatId, setChatId] = useState("");
  const [events, setEvents] = useState<string[]>(["regression_found", "test_failed"]);
  const [secret, setSecret] = useState<string | null>(null);
  const { busy, error, setError, run } = useAction();

  // A new target or subscription shows in the lists, the dashboard and the delivery log.
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: TARGETS_KEY });
    void refreshComponent(project, component);
  };

  const submit = async () => {
    setSecret(null);
    const done = await run(async () => {
      let id = Number(targetId);
      if (targetId === "new") {
        const made = await createTarget(
          kind === "telegram" ? { kind, name, token, chat_id: chatId } : { kind, name, url },
        );
        if (!made) throw new Error("the target was not created");
        id = made.id;
        if (made.secret) setSecret(made.secret);
      }
      await subscribe(component, project, id, events);
    });
    if (!done) return;
    setName("");
    setUrl("");
    setToken("");
    refresh();
  };

  return (
    <section className="card notify-card" aria-label="Notification subscriptions">
      <h2>Notify me</h2>
      {subs.error ? (
        <ErrorBox error={subs.error} what="your subscriptions" />
      ) : !subs.data ? (
        <Loading what="your subscriptions" />
      ) : subs.data.length === 0 ? (
        <p className="hint">None of your targets hears of this component yet.</p>
      ) : (
        <ul className="subscriptions">
          {subs.data.map((s) => (
            <li key={s.id}>
              <strong>{s.target.name}</strong> <span className="hint">{s.target.kind} {s.target.address_hint}</span>:{" "}
              {s.events.map((e) => EVENTS.find(([k]) => k === e)?.[1] ?? e).join(", ")}{" "}
              <button
                type="button"
                className="link"
                onClick={() => void unsubscribe(component, project, s.id).then(refresh, (e: unknown) => setError(errorText(e)))}
              >
                stop
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        className="notify-form"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <label>
          Send to{" "}
          <select aria-label="Target" value={targetId} onChange={(e) => setTargetId(e.target.value)}>
            <option value="new">a new target…</option>
            {(targets.data ?? []).map((t) => (
              <option key={t.id} value={t.id}>
                {t.name} ({t.kind})
              </option>
            ))}
          </select>
        </label>
        {targetId === "new" && (
          <div className="new-target">
            <label>
              Kind{" "}
              <select aria-label="Kind" value={kind} onChange={(e) => setKind(e.target.value as TargetKind)}>
                {KINDS.map(([k, label]) => (
                  <option key={k} value={k}>
                    {label}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Name <input aria-label="Target name" value={name} onChange={(e) => setName(e.target.value)} required />
            </label>
            {kind === "telegram" ? (
              <>
                <label>
                  Bot token{" "}
                  <input aria-label="Bot token" value={token} onChange={(e) => setToken(e.target.value)} required />
                </label>
                <label>
                  Chat id <input aria-label="Chat id" value={chatId} onChange={(e) => setChatId(e.target.value)} required />
                </label>
              </>
            ) : (
              <label>
                URL <input aria-label="Webhook URL" type="url" value={url} onChange={(e) => setUrl(e.target.value)} required />
              </label>
            )}
          </div>
        )}
        <fieldset className="events">
          <legend>Events</legend>
          {EVENTS.map(([k, label]) => (
            <label className="check" key={k}>
              <input
                type="checkbox"
                checked={events.includes(k)}
                onChange={() => setEvents(events.includes(k) ? events.filter((x) => x !== k) : [...events, k])}
              />
              {label}
            </label>
          ))}
        </fieldset>
        <button type="submit" className="button primary" disabled={busy || events.length === 0}>
          Subscribe
        </button>
        {error && (
          <span className="state error inline" role="alert">
            {error}
          </span>
        )}
        {secret && (
          <p className="secret" role="status">
            The webhook's signing key, shown this once: <code data-testid="webhook-secret">{secret}</code>
          </p>
        )}
      </form>
    </section>
  );
}
