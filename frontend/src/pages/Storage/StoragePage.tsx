/**
 * The Storage page (staff): what the stored tests take on disk (ClickHouse's system.parts), per table and for the
 * largest tests, where it is going at the current rate, the quota, the retention policy and its jobs' progress,
 * with a button to run retention now. Everything shown is the API's (GET /api/v1/storage, /api/v1/retention/jobs).
 */
import { getRetentionJobs, getStorage } from "../../api/endpoints";
import { ErrorBox, Loading } from "../../components/States";
import { queryClient, useApi } from "../../hooks/useApi";
import { Retention } from "./Retention";
import { StorageFigures } from "./StorageFigures";
import "./storage.css";

export function StoragePage() {
  const storage = useApi(["storage"], (signal) => getStorage(signal));
  const jobs = useApi(["retention-jobs"], (signal) => getRetentionJobs(signal), {
    // While a job runs its progress is polled; then the storage figures are asked again.
    refetchInterval: (data) => (data?.jobs.some((j) => j.status === "queued" || j.status === "running") ? 2000 : false),
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ["retention-jobs"] });
  return (
    <main className="page storage" data-page="storage">
      <h1>Storage</h1>
      {storage.error ? (
        <ErrorBox error={storage.error} what="the storage figures" />
      ) : !storage.data ? (
        <Loading what="the storage figures" />
      ) : (
        <StorageFigures storage={storage.data} />
      )}
      {jobs.data && <Retention jobs={jobs.data} onStarted={refresh} />}
      {jobs.error && <ErrorBox error={jobs.error} what="the retention jobs" />}
    </main>
  );
}
