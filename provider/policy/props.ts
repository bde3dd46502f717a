/**
 * A resource's properties as policies receive them, made plain. The engine sends a preview's
 * unknown values as sentinel strings, and `@pulumi/policy` wraps the properties in a proxy that
 * throws on reading one: the policy then reports only "can't run during preview". A domain's SPF
 * and DKIM content are unknown until the service has answered, so every new domain would say so.
 * Reading through property descriptors (which the proxy does not trap) gives the values as they
 * are, with each unknown as {@link UNKNOWN}: a rule then judges what is known and says what waits.
 */

/** A value the engine computes later: unknown in a preview. */
export const UNKNOWN: unique symbol = Symbol("unknown");
/** {@link UNKNOWN}'s type. */
export type Unknown = typeof UNKNOWN;

/**
 * The engine's and `@pulumi/policy`'s sentinels for unknown values (string, then boolean, number,
 * array, asset, archive and object), as `@pulumi/policy/proxy.js` defines them.
 */
const UNKNOWN_SENTINELS: ReadonlySet<string> = new Set([
  "04da6b54-80e4-46f7-96ec-b56ff0331ba9",
  "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7",
  "3eeb2bf0-c639-47a8-9e75-3b44932eb421",
  "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2",
  "030794c1-ac77-496b-92df-f27374a8bd58",
  "e48ece36-62e2-4504-bad9-02848725956a",
  "dd056dcd-154b-4c76-9bd3-c8f88648b5ff",
]);

/** Plain properties: objects and arrays copied, unknowns as {@link UNKNOWN}. */
export type PlainProps = Record<string, unknown>;

/** `props` (proxied or not) as plain data, each unknown value as {@link UNKNOWN}. */
export function plainProps(props: unknown): PlainProps {
  const plain = plainValue(props);
  return plain !== null && typeof plain === "object" && !Array.isArray(plain) ? (plain as PlainProps) : {};
}

// Loops, not `map`s and closures: a stack of 1,000 domains is 7,000 resources, each copied per rule.
function plainValue(value: unknown): unknown {
  if (typeof value === "string") return UNKNOWN_SENTINELS.has(value) ? UNKNOWN : value;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const length = Reflect.getOwnPropertyDescriptor(value, "length")?.value as number;
    const plain: unknown[] = new Array(length);
    for (let index = 0; index < length; index++) plain[index] = ownValue(value, String(index));
    return plain;
  }
  const plain: PlainProps = {};
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key !== "string") continue;
    // Defined, not assigned: a property named `__proto__` stays a property.
    if (key === "__proto__")
      Object.defineProperty(plain, key, {
        value: ownValue(value, key),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else plain[key] = ownValue(value, key);
  }
  return plain;
}

/** The value of `object`'s own property `key`, read past the proxy and made plain. */
function ownValue(object: object, key: string): unknown {
  return plainValue(Reflect.getOwnPropertyDescriptor(object, key)?.value);
}

/** The string at `value`, or undefined when it is absent, unknown or not a string. */
export function knownString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The number at `value`, or undefined when it is absent, unknown or not a number. */
export function knownNumber(value: unknown): number | undefined {
  return typeof value === "number" ? value : undefined;
}

/** The object at `value`, or undefined when it is absent, unknown or not an object. */
export function knownObject(value: unknown): PlainProps | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as PlainProps)
    : undefined;
}

/** `Spf.Example.com.` as `spf.example.com`: DNS names compare without case and final dot. */
export function dnsName(name: string): string {
  return name.toLowerCase().replace(/\.$/, "");
}

/** `items` by `key` (Node 20 has no `Map.groupBy`). */
export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}
