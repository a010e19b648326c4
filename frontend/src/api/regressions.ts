/**
 * Typed calls of the regressions and notifications endpoints (component dashboard, baseline, KPIs, delivery log).
 * A component is a name within a project: every call names the project (`?project=<slug>`; "" = the server's
 * default project).
 */
import { projectParams } from "../lib/project";
import { buildUrl, getJson, sendJson } from "./client";
import type { components } from "./schema";
import type {
  BaselineAnswer,
  Dashboard,
  DeliveryJson,
  KpiSetting,
  KpiSettings,
  SubscriptionJson,
  TargetJson,
} from "./types";

const API = "/api/v1";
const comp = (name: string) => `${API}/components/${encodeURIComponent(name)}`;
/** A write's URL: the project goes in the query, as for the reads. */
const at = (path: string, project: string) => buildUrl(path, projectParams(project));

type Schemas = components["schemas"];

export const getDashboard = (name: string, project: string, signal?: AbortSignal) =>
  getJson<Dashboard>(`${comp(name)}/dashboard`, projectParams(project), signal);

export const getBaseline = (name: string, project: string, signal?: AbortSignal) =>
  getJson<BaselineAnswer>(`${comp(name)}/baseline`, projectParams(project), signal);

export const setBaseline = (name: string, project: string, test: number) =>
  sendJson<BaselineAnswer>("POST", at(`${comp(name)}/baseline`, project), { test });

export const clearBaseline = (name: string, project: string) =>
  sendJson<BaselineAnswer>("DELETE", at(`${comp(name)}/baseline`, project));

export const saveKpis = (name: string, project: string, kpis: KpiSetting[]) =>
  sendJson<KpiSettings>("PUT", at(`${comp(name)}/kpis`, project), { kpis });

export const getDeliveries = (name: string, project: string, signal?: AbortSignal) =>
  getJson<DeliveryJson[]>(`${comp(name)}/deliveries/`, projectParams(project), signal);

/** The target kinds the form offers (the schema's `kind` is any string the server accepts). */
export type TargetKind = "slack" | "teams" | "teams_workflow" | "telegram" | "webhook";

/** Makes `K` optional in each member of a union. */
type OptionalIn<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> & Partial<Pick<T, K & keyof T>> : never;

/** A new target: the schema's create body (URL or Telegram bot), whose `for_tank_notify` the server defaults. */
export type NewTarget = OptionalIn<Schemas["TargetCreate"], "for_tank_notify">;

export const listTargets = (signal?: AbortSignal) => getJson<TargetJson[]>(`${API}/notify/targets/`, [], signal);

export const createTarget = (target: NewTarget) => sendJson<TargetJson>("POST", `${API}/notify/targets/`, target);

export const listSubscriptions = (name: string, project: string, signal?: AbortSignal) =>
  getJson<SubscriptionJson[]>(`${comp(name)}/subscriptions/`, projectParams(project), signal);

export const subscribe = (name: string, project: string, target: number, events: string[]) =>
  sendJson<SubscriptionJson>("POST", at(`${comp(name)}/subscriptions/`, project), { target, events });

export const unsubscribe = (name: string, project: string, id: number) =>
  sendJson<null>("DELETE", at(`${comp(name)}/subscriptions/${id}/`, project));
