/**
 * What the demo's server-side printers share: the Column shape, Name and Age, apimachinery's
 * HumanDuration, and small readers of loosely typed objects.
 */
import type { DemoObject } from '../store';

export interface Column {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description: string;
  priority?: number;
  cell: (o: DemoObject, now: Date) => unknown;
}

export const nameCol: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  cell: (o) => o.metadata.name,
};

export const ageCol: Column = {
  name: 'Age',
  type: 'string',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.',
  cell: (o, now) => age(o.metadata.creationTimestamp, now),
};

/** k8s.io/apimachinery/pkg/util/duration.HumanDuration. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const d = Math.floor(hours / 24) % 365;
    return d === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${d}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

export function age(ts: string | undefined, now: Date): string {
  if (!ts) return '<unknown>';
  return humanDuration(now.getTime() - Date.parse(ts));
}

export type Obj = Record<string, unknown>;
export const get = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((c, p) => (c && typeof c === 'object' ? (c as Obj)[p] : undefined), o);
export const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);
