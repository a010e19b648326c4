/** Typed calls of the regressions and notifications endpoints (component dashboard, baseline, KPIs, delivery log). */
import { getJson, sendJson } from "./client";
import type { PlotlyFigureJson } from "./types";

const API = "/api/v1";
const comp = (name: string) => `${API}/components/${encodeURIComponent(name)}`;

export type ThresholdKind = "absolute" | "relative";

export interface Threshold {
  kind: ThresholdKind;
  value: number;
}

export interface KpiSetting {
  kpi: string;
  threshold: Threshold | null;
}

export interface KpiSettings {
  component: string;
  kpis: KpiSetting[];
  stored: boolean;
}

export interface DashboardTest {
  id: number;
  name: string;
  version: string;
  ts: number;
  status: string;
  url: string;
}

export interface BaselineTest extends DashboardTest {
  set_by: string | null;
  set_at: string | null;
}

export interface KpiPointJson {
  test_id: number;
  ts: number;
  value: number | null;
  past_threshold: boolean;
}

export interface KpiSeriesJson {
  kpi: string;
  title: string;
  unit: string;
  direction: "higher_is_worse" | "lower_is_worse";
  threshold: Threshold | null;
  limit: number | null;
  baseline_value: number | null;
  points: KpiPointJson[];
  change_points: number[];
  figure: PlotlyFigureJson;
}

export interface Dashboard {
  component: string;
  baseline: BaselineTest | null;
  kpis_stored: boolean;
  kpis: KpiSeriesJson[];
  tests: DashboardTest[];
}

export interface BaselineAnswer {
  component: string;
  baseline: BaselineTest | null;
  history: { test_id: number | null; cleared: boolean; set_by: string | null; set_at: string }[];
}

export interface DeliveryJson {
  id: number;
  test_id: number;
  event: string;
  via: string;
  target: string;
  target_kind: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string;
  created_at: string;
  sent_at: string | null;
  title: string;
}

export const getDashboard = (name: string, signal?: AbortSignal) =>
  getJson<Dashboard>(`${comp(name)}/dashboard`, [], signal);

export const getBaseline = (name: string, signal?: AbortSignal) =>
  getJson<BaselineAnswer>(`${comp(name)}/baseline`, [], signal);

export const setBaseline = (name: string, test: number) =>
  sendJson<BaselineAnswer>("POST", `${comp(name)}/baseline`, { test });

export const clearBaseline = (name: string) => sendJson<BaselineAnswer>("DELETE", `${comp(name)}/baseline`);

export const saveKpis = (name: string, kpis: KpiSetting[]) =>
  sendJson<KpiSettings>("PUT", `${comp(name)}/kpis`, { kpis });

export const getDeliveries = (name: string, signal?: AbortSignal) =>
  getJson<DeliveryJson[]>(`${comp(name)}/deliveries/`, [], signal);

export type TargetKind = "slack" | "teams" | "teams_workflow" | "telegram" | "webhook";

export interface TargetJson {
  id: number;
  kind: TargetKind;
  name: string;
  address_hint: string;
  chat_id: string;
  for_tank_notify: boolean;
  created_at: string;
  /** A webhook's generated signing key: in the answer that created it, and never again. */
  secret?: string;
}

export interface NewTarget {
  kind: TargetKind;
  name: string;
  url?: string;
  token?: string;
  chat_id?: string;
}

export interface SubscriptionJson {
  id: number;
  component: string;
  target: TargetJson;
  events: string[];
}

export const listTargets = (signal?: AbortSignal) => getJson<TargetJson[]>(`${API}/notify/targets/`, [], signal);

export const createTarget = (target: NewTarget) => sendJson<TargetJson>("POST", `${API}/notify/targets/`, target);

export const listSubscriptions = (name: string, signal?: AbortSignal) =>
  getJson<SubscriptionJson[]>(`${comp(name)}/subscriptions/`, [], signal);

export const subscribe = (name: string, target: number, events: string[]) =>
  sendJson<SubscriptionJson>("POST", `${comp(name)}/subscriptions/`, { target, events });

export const unsubscribe = (name: string, id: number) => sendJson<null>("DELETE", `${comp(name)}/subscriptions/${id}/`);
