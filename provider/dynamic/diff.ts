import type * as pulumi from "@pulumi/pulumi";
import { containsUnknown } from "../inputs";
import { storedProviderOutdated } from "./loader";

/** How a change to each property is applied. */
export interface DiffRules {
  /** Properties whose change needs a new object (the API cannot change them in place). */
  replace: string[];
  /** Properties changed in place by an update call. */
  update: string[];
  /** How two known values are compared. @default deep equality */
  same?: (property: string, old: unknown, next: unknown) => boolean;
  /**
   * Whether a replaced object is deleted before its replacement is created: needed when the
   * service's names are unique, so the new one could not be made while the old one exists.
   * @default false (the engine's default, create first)
   */
  deleteBeforeReplace?: boolean;
}

/**
 * Compares old outputs with new inputs property by property. `__provider` is not compared here
 * (it means nothing to the service; see `storedProviderOutdated` for the one case it matters); an
 * unknown value is reported as a change, and as a replacement when the property forces one.
 */
export function diffProperties(
  olds: object,
  news: object,
  rules: DiffRules,
): { changed: string[]; replaces: string[] } {
  const same = rules.same ?? ((_property: string, a: unknown, b: unknown) => sameValue(a, b));
  const changed = changedFields(
    { ...olds },
    { ...news },
    [...rules.replace, ...rules.update],
    (property, a, b) => !containsUnknown(b) && same(property, a, b),
  );
  return { changed, replaces: changed.filter((property) => rules.replace.includes(property)) };
}

/**
 * `diff()` by the rules: a change when a property differs or the stored provider must be
 * rewritten (see `storedProviderOutdated`), replacing the object when a `replace` property does.
 */
export function diffByRules<Olds extends { __provider?: unknown }, News extends { __provider?: unknown }>(
  olds: Olds,
  news: News,
  rules: DiffRules,
): pulumi.dynamic.DiffResult & { changes: boolean; replaces: string[] } {
  const { changed, replaces } = diffProperties(olds, news, rules);
  return {
    changes: changed.length > 0 || storedProviderOutdated(olds, news),
    replaces,
    // Absent unless asked for, as the engine's default is to create the replacement first.
    ...(rules.deleteBeforeReplace ? { deleteBeforeReplace: replaces.length > 0 } : {}),
  };
}

/**
 * The fields among `fields` whose values differ from `current` to `wanted`, in the order of
 * `fields`. Values compare by `same`, deep equality by default (where absent equals `null`).
 */
export function changedFields<K extends string>(
  current: Readonly<Partial<Record<K, unknown>>>,
  wanted: Readonly<Partial<Record<K, unknown>>>,
  fields: readonly K[],
  same: (field: K, current: unknown, wanted: unknown) => boolean = (_field, a, b) => sameValue(a, b),
): K[] {
  return fields.filter((field) => !same(field, current[field], wanted[field]));
}

/** `fields` of `source` as an object of their own, e.g. the changed ones for an update call. */
export function pickFields<T extends object, K extends keyof T>(source: T, fields: readonly K[]): Pick<T, K> {
  const picked: Partial<Pick<T, K>> = {};
  for (const field of fields) picked[field] = source[field];
  // Every field of `fields` was set just above.
  return picked as Pick<T, K>;
}

/** Deep equality of JSON values, where absent equals `null` (as in Pulumi's property values). */
export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
