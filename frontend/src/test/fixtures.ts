/** Fixed API answers for the report's component tests, typed by the OpenAPI schema so they stay real shapes. */
import type {
  ChartAnswer,
  ConfigAnswer,
  MonitoringAnswer,
  PlotlyFigureJson,
  ReportInfo,
  Summary,
  TablesAnswer,
  TestMeta,
} from "../api/types";

export const FIRST_TS = 1_764_000_000;
export const LAST_TS = FIRST_TS + 599;

export function outcomes(requests: number, failed: number) {
  const share = (n: number) => (requests ? n / requests : null);
  return {
    requests,
    failed,
    failed_share: share(failed),
    http_2xx: requests - failed,
    http_2xx_share: share(requests - failed),
    http_errors: failed,
    http_errors_share: share(failed),
    net_errors: 0,
    net_errors_share: share(0),
    discarded: 0,
    discarded_share: share(0),
    timeouts: 0,
    timeouts_share: share(0),
  };
}

export function figure(traces = 1): PlotlyFigureJson {
  return { data: Array.from({ length: traces }, () => ({ x: [1, 2], y: [3, 4] })), layout: {} };
}

export const CHART: ChartAnswer = { figure: figure(2), compress_ratio: 1 };

export const TEST: TestMeta = {
  id: 7,
  name: "checkout ramp",
  description: "",
  component: "checkout",
  status: "ready",
  error: "",
  exit_code: 0,
  exit_reason: "",
  closed_by_silence: false,
  has_stream: true,
  active_upload: null,
  first_ts: FIRST_TS,
  last_ts: LAST_TS,
  project: "default",
  owner: "ann",
  created_at: "2025-11-24T16:00:00Z",
  finished_at: "2025-11-24T16:10:00Z",
  raw_expired_at: null,
  aggregates_expired_at: null,
  can_write: false,
  stop_requested: false,
  stopped_at: null,
  stop_ends_shooting: false,
  tags: [],
  author: "ann",
  q99_ms: 120.5,
  max_rps: 1000,
  error_share: 0.001,
  imbalance_rps: null,
  result: { kind: "ok", text: "ok" },
};

export const REPORT: ReportInfo = {
  id: 7,
  status: "ready",
  exact: true,
  first_ts: FIRST_TS,
  last_ts: LAST_TS,
  cases: ["login", "pay"],
  sources: [],
  monitoring_hosts: [],
  compress_ratio: 1,
  charts: [],
};

export const SUMMARY: Summary = {
  test: 7,
  from: null,
  to: null,
  cases: [],
  exact: true,
  count: 10_000,
  quantiles_ms: { "50": 12, "99": 120.5 },
  http_codes: { "200": 9_990, "500": 10 },
  net_codes: { "0": 10_000 },
  rps: { mean: 16.7, max: 1000 },
  outcomes: outcomes(10_000, 10),
};

export const TABLES: TablesAnswer = {
  exact: true,
  quantiles: {
    columns: ["", "login", "pay"],
    rows: [
      { level: "50", values: [12, 10.25, 14] },
      { level: "99", values: [120.5, 99, 140.75] },
    ],
  },
  http_codes: [
    { code: 200, name: "OK", count: 9_990, share: 0.999, class: "success" },
    { code: 500, name: "Internal Server Error", count: 10, share: 0.001, class: "server_error" },
  ],
  net_codes: [{ code: 0, name: "Success", count: 10_000, share: 1, class: "success" }],
  cases: [
    { case: "", count: 10_000, rps_mean: 16.7, rps_max: 1000, mean_ms: 20.125, outcomes: outcomes(10_000, 10) },
    { case: "login", count: 4_000, rps_mean: 6.7, rps_max: 400, mean_ms: 15, outcomes: outcomes(4_000, 0) },
    { case: "pay", count: 6_000, rps_mean: 10, rps_max: 600, mean_ms: 23.5, outcomes: outcomes(6_000, 10) },
  ],
  intervals: [
    { from_ms: 0, to_ms: 100, count: 9_800, share: 0.98 },
    { from_ms: 100, to_ms: 1000, count: 200, share: 0.02 },
  ],
};

export const CONFIG: ConfigAnswer = {
  configinitial: "phantom:\n  address: shop:443\n",
  configinfo: "",
  monitoringconfig: "<Monitoring/>",
};

export const MONITORING: MonitoringAnswer = {
  compress_ratio: 1,
  hosts: [
    {
      host: "db1",
      groups: [
        { group: "cpu", metrics: ["user", "system"], figure: figure(2) },
        { group: "memory", metrics: ["used"], figure: figure(1) },
      ],
    },
    { host: "app1", groups: [{ group: "cpu", metrics: ["user"], figure: figure(1) }] },
  ],
};
