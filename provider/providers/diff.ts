import { containsUnknown } from "../inputs";

/** How a change to each property is applied. */
export interface DiffRules {
  /** Properties whose change needs a new object (the API cannot change them in place). */
  replace: string[];
  /** Properties changed in place by an update call. */
  update: string[];
  /** How two known values are compared. @default deep equality */
  same?: (property: string, old: unknown, next: unknown) => boolean;
}

/**
 * Compares old outputs with new inputs property by property. `__provider` is not compared here
 * (it means nothing to the service; see `storedProviderOutdated` for the one case it matters); an
 * unknown value is reported as a change, and as a replacement when the property forces one.
 */
export function diffProperties(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  rules: DiffRules,
): { changed: string[]; replaces: string[] } {
  const same = rules.same ?? ((_property: string, a: unknown, b: unknown) => sameValue(a, b));
  const changed = [...rules.replace, ...rules.update].filter(
    (property) => containsUnknown(news[property]) || !same(property, olds[property], news[property]),
  );
  return { changed, replaces: changed.filter((property) => rules.replace.includes(property)) };
}

export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
