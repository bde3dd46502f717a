import { startProviderHost, urnFor } from "../tests/support/provider-host";
import { STORED_TYPES, StoredType } from "./package";
import { median } from "./setup";

export interface ProviderTextFigures {
  type: StoredType;
  textBytes: number;
  /** What the text adds to each resource's state: once in the inputs, once in the outputs, JSON-escaped. */
  storedBytes: number;
  /** Time the provider host takes to load the text (first call minus second), one figure per host. */
  loadMs: number[];
  loadMedianMs: number;
}

/** What one text adds to a resource's state (inputs and outputs each hold it as a JSON string). */
export function storedBytes(text: string): number {
  return 2 * Buffer.byteLength(JSON.stringify(text));
}

/** Inputs each resource type's `check` accepts without asking the service. */
const VALID_INPUTS: Record<StoredType, Record<string, unknown>> = {
  Domain: { name: "timed.example.com" },
  DomainVerification: { domainId: 1 },
  Route: { name: "timed", domainId: 1, endpointId: 1 },
};

/**
 * Each loader text's size, and the time the real provider host takes to load it: in a host started
 * in the installed project (the loader loads the installed package from there), the first `check`
 * of each resource type (the host evaluates the text and configures the provider) minus a second
 * one. Types are loaded in the order of STORED_TYPES, as a refresh would meet them; `runs` hosts.
 */
export async function measureProviderTexts(
  texts: Record<StoredType, string>,
  cwd: string,
  runs = 3,
): Promise<ProviderTextFigures[]> {
  const loadMs: Record<string, number[]> = {};
  for (let run = 0; run < runs; run++) {
    const host = await startProviderHost({ cwd });
    try {
      await host.configure({});
      for (const type of Object.keys(STORED_TYPES) as StoredType[]) {
        const urn = urnFor(`email-delivery:${type}`, "timed");
        const check = async () => {
          const start = performance.now();
          const { failures } = await host.check(urn, {}, { ...VALID_INPUTS[type], __provider: texts[type] });
          if (failures.length) throw new Error(`${type}: ${JSON.stringify(failures)}`);
          return performance.now() - start;
        };
        const first = await check();
        (loadMs[type] ??= []).push(first - (await check()));
      }
    } finally {
      await host.stop();
    }
  }
  return (Object.keys(STORED_TYPES) as StoredType[]).map((type) => ({
    type,
    textBytes: Buffer.byteLength(texts[type]),
    storedBytes: storedBytes(texts[type]),
    loadMs: loadMs[type],
    loadMedianMs: median(loadMs[type]),
  }));
}
