/** The newest notifications of the component's events sent to the user's targets (all of them for staff). */
import { getDeliveries } from "../../api/regressions";
import { ColumnHeads } from "../../components/ColumnHeads";
import { Empty, ErrorBox, Loading } from "../../components/States";
import { TableCard } from "../../components/TableCard";
import { componentKey, useApi } from "../../hooks/useApi";
import { formatIso } from "../../lib/format";

const EVENTS: Record<string, string> = {
  test_finished: "test finished",
  regression_found: "regression found",
  test_failed: "test failed",
};

export function DeliveryLog({ component, project }: { component: string; project: string }) {
  const log = useApi(componentKey(project, component, "deliveries"), (signal) =>
    getDeliveries(component, project, signal),
  );
  return (
    <TableCard
      label="Notifications"
      head={<h2>Notifications sent</h2>}
      table="deliveries"
      instead={
        log.error ? (
          <ErrorBox error={log.error} what="the delivery log" />
        ) : !log.data ? (
          <Loading what="the delivery log" />
        ) : log.data.length === 0 ? (
          <Empty>
            No notifications yet. Subscribe a target (Slack, Mattermost, Rocket.Chat, Teams, Telegram or a signed
            webhook) through <code>/api/v1/components/{component}/subscriptions/</code>; see docs/regressions.md.
          </Empty>
        ) : null
      }
    >
      <ColumnHeads columns={["When", "Test", "Event", "Target", "Status", { label: "Attempts", num: true }]} />
      <tbody>
        {(log.data ?? []).map((d) => (
          <tr key={d.id} className={d.status === "failed" ? "broke" : ""}>
            <td>{formatIso(d.created_at)}</td>
            <td>
              <a href={`/${d.test_id}`}>#{d.test_id}</a>
            </td>
            <td>{EVENTS[d.event] ?? d.event}</td>
            <td>
              {d.target} <span className="hint">{d.target_kind}</span>
            </td>
            <td>
              <span className={`delivery-${d.status}`}>{d.status}</span>
              {d.last_error && <div className="hint">{d.last_error}</div>}
            </td>
            <td className="num">{d.attempts}</td>
          </tr>
        ))}
      </tbody>
    </TableCard>
  );
}
