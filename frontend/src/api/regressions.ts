/** Typed calls of the regressions and notifications endpoints (component dashboard, baseline, KPIs, delivery log). */
import { getJson, sendJson } from "./client";
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

type Schemas = components["schemas"];

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

/** The target kinds the form offers (the schema's `kind` is any string the server accepts). */
export type TargetKind = "slack" | "teams" | "teams_workflow" | "telegram" | "webhook";

/** Makes `K` optional in each member of a union. */
type OptionalIn<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> & Partial<Pick<T, K & keyof T>> : never;

/** A new target: the schema's create body (URL or Telegram bot), whose `for_tank_notify` the server defaults. */
export type NewTarget = OptionalIn<Schemas["TargetCreate"], "for_tank_notify">;

export const listTargets = (signal?: AbortSignal) => getJson<TargetJson[]>(`${API}/notify/targets/`, [], signal);

export const createTarget = (target: NewTarget) => sendJson<TargetJson>("POST", `${API}/notify/targets/`, target);

export const listSubscriptions = (name: string, signal?: AbortSignal) =>
  getJson<SubscriptionJson[]>(`${comp(name)}/subscriptions/`, [], signal);

export const subscribe = (name: string, target: number, events: string[]) =>
  sendJson<SubscriptionJson>("POST", `${comp(name)}/subscriptions/`, { target, events });

export const unsubscribe = (name: string, id: number) => sendJson<null>("DELETE", `${comp(name)}/subscriptions/${id}/`);
