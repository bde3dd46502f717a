import * as pulumi from "@pulumi/pulumi";

/** Globals jest adds; a Pulumi program has none of them. */
const JEST_GLOBALS = [
  "describe",
  "fdescribe",
  "xdescribe",
  "it",
  "fit",
  "xit",
  "test",
  "xtest",
  "expect",
  "beforeAll",
  "afterAll",
  "beforeEach",
  "afterEach",
  "jest",
  "pending",
  "fail",
] as const;

/**
 * A provider's serialized text, produced exactly as `pulumi.dynamic.Resource` does for
 * `__provider` in a Pulumi program. The closure serializer treats every name found on `global`
 * as a built-in and does not capture it, so under jest a provider's own function called
 * `describe` or `test` would be left out of the text (and fail in the host with "describe is
 * not defined") although a real program serializes it. Jest's globals are therefore hidden
 * while serializing.
 */
export async function serializeProvider(provider: object): Promise<string> {
  const saved = new Map<string, PropertyDescriptor>();
  const holder = globalThis as Record<string, unknown>;
  for (const name of JEST_GLOBALS) {
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, name);
    if (descriptor?.configurable) {
      saved.set(name, descriptor);
      delete holder[name];
    }
  }
  try {
    return (await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true })).text;
  } finally {
    for (const [name, descriptor] of saved) Object.defineProperty(globalThis, name, descriptor);
  }
}

/**
 * A stored provider of the form builds before the loader wrote (this package's code serialized by
 * value by Pulumi's closure serializer), for tests of state that still holds one. The package no
 * longer serializes (its schemas and errors are module-level and classes), and such a text is
 * only compared, never run: any text that is not a loader stands for it.
 */
export const SERIALIZED_BEFORE_THE_LOADER = `exports.handler = __f0;

function __f0() {
  return (function() {
    with({ provider: __provider }) {
return () => provider;
    }
  }).apply(undefined, undefined).apply(this, arguments);
}
`;
