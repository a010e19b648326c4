/**
 * Shapes of the /api/v1/ answers the pages read (docs/ARCHITECTURE.md, contract.md). Fields other engineers
 * may not have landed yet are optional, and the pages render what is there.
 */

export type TestStatus = "online" | "processing" | "ready" | "failed";

export interface PlotlyFigureJson {
  data: Record<string, unknown>[];
  layout?: Record<string, unknown>;
}

export interface TestMeta {
  id: number;
  name?: string;
  description?: string;
  task?: string;
  person?: string;
  owner?: string | number | null;
  component?: string;
  version?: string;
  target_host?: string;
  target_port?: string | number;
  tank_host?: string;
  instances?: number | null;
  loadscheme?: unknown;
  status: TestStatus;
  error?: string;
  exit_code?: number | null;
  exit_reason?: string;
  starred?: boolean;
  created_at?: string;
  finished_at?: string | null;
  first_ts?: number | null;
  last_ts?: number | null;
  has_stream?: boolean;
  active_upload?: number | null;
  can_write?: boolean;
  tags?: string[];
  /** The tank's person, else the owner's username. */
  author?: string;
  q99_ms?: number | null;
  max_rps?: number | null;
  imbalance_rps?: number | null;
  result?: { kind: "ok" | "errors" | "stopped" | "failed" | "running" | "processing"; text: string };
  /** Set once the owner pressed Stop; the tank's next push or status call is answered so that it stops. */
  stop_requested?: boolean;
}

/** The fields the report's edit form changes (PATCH /tests/<id>/). */
export interface TestEdit {
  name: string;
  description: string;
  component: string;
  version: string;
  tags: string[];
}

export interface Note {
  id: number;
  ts: number;
  text: string;
  author: string | null;
  created_at: string;
  can_delete: boolean;
}

export interface Paginated<T> {
  count: number;
  next?: string | null;
  previous?: string | null;
  results: T[];
  page_size?: number;
}

export interface ReportInfo {
  cases: string[];
  first_ts: number | null;
  last_ts: number | null;
  exact: boolean;
  sources?: unknown;
  monitoring_hosts?: string[];
  status?: TestStatus;
}

export interface Summary {
  test: number;
  from: number | null;
  to: number | null;
  cases: string[];
  exact: boolean;
  count: number;
  quantiles_ms: Record<string, number | null>;
  http_codes: Record<string, number>;
  net_codes: Record<string, number>;
  rps: { mean: number | null; max: number | null };
}

export interface ChartAnswer {
  figure: PlotlyFigureJson;
  compress_ratio?: number;
}

export interface UploadInfo {
  id: number;
  status: string;
  size_bytes?: number;
  progress_bytes?: number;
  lines_total?: number;
  lines_bad?: number;
  error?: string;
  bad_examples?: { line: number; reason: string }[];
}

export interface Finding {
  kind: string;
  severity: string;
  title: string;
  text: string;
  evidence?: Record<string, unknown>;
  annotations?: { ts: number; label: string }[];
}

export interface AnalysisAnswer {
  status?: "pending" | "ready" | "failed";
  error?: string;
  findings: Finding[];
  figures?: Record<string, PlotlyFigureJson>;
}

export interface CompareAnswer {
  tests: number[];
  quantiles_ms: Record<string, (number | null)[]>;
  diff_ms?: Record<string, (number | null)[]>;
  verdict?: Record<string, (string | null)[]>;
  interval_ms?: Record<string, ([number, number] | null)[]>;
  http_codes?: Record<string, number[]>;
  net_codes?: Record<string, number[]>;
  figures?: Record<string, PlotlyFigureJson>;
  method?: string;
}

export interface TrendAnswer {
  component?: string;
  figure_name?: string;
  unit?: string;
  figure?: PlotlyFigureJson;
  tests?: {
    id: number;
    ts?: number;
    value: number | null;
    broke_trend?: boolean;
    reasons?: string[];
    baseline?: number | null;
  }[];
  change_points?: { index: number; test_id: number; ts: number }[];
  thresholds?: { baseline?: number; lower?: number | null; upper?: number | null; direction?: string };
}

export interface Me {
  authenticated: boolean;
  username: string;
  is_staff: boolean;
}

export interface TablesAnswer {
  exact: boolean;
  quantiles: { columns: string[]; rows: { level: string; values: (number | null)[] }[] };
  http_codes: { code: number; name?: string; count: number; percent: number }[];
  net_codes: { code: number; name: string; count: number; percent: number }[];
  intervals?: { from_ms: number; to_ms: number; count: number; percent: number }[];
  cases: {
    case: string;
    count: number;
    rps_mean: number;
    rps_max: number;
    mean_ms: number | null;
    net_errors: number;
    http_errors: number;
  }[];
}

export interface MonitoringAnswer {
  compress_ratio?: number;
  hosts: { host: string; groups: { group: string; metrics: string[]; figure: PlotlyFigureJson }[] }[];
}
