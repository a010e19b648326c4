/** Config: the tank's configs uploaded with the test, as sent (configinitial, configinfo, monitoring config). */
import { getConfig } from "../../../api/endpoints";
import { Empty, ErrorBox, Loading } from "../../../components/States";
import { testKey, useApi } from "../../../hooks/useApi";

const LABELS: Record<string, string> = {
  configinitial: "Initial config (configinitial)",
  configinfo: "Effective config (configinfo)",
  monitoringconfig: "Monitoring config",
};

export function ConfigTab({ testId }: { testId: number }) {
  const answer = useApi(testKey(testId, "config"), (signal) => getConfig(testId, signal));
  if (answer.error) return <ErrorBox error={answer.error} what="the configs" />;
  if (!answer.data) return <Loading what="configs" />;
  const entries = Object.entries(answer.data).filter(([, value]) => value.trim() !== "");
  if (entries.length === 0) return <Empty>The tank sent no configs with this test.</Empty>;
  return (
    <div className="configs">
      {entries.map(([name, value]) => (
        <section className="card" key={name} aria-label={LABELS[name] ?? name}>
          <h2>{LABELS[name] ?? name}</h2>
          <pre tabIndex={0}>{value}</pre>
        </section>
      ))}
    </div>
  );
}
