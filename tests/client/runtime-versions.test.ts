import * as http from "node:http";
import * as https from "node:https";
import { createClient } from "../../provider/client";
import { envelope, startScriptedServer } from "../support/scripted-server";

/**
 * process-runtime.ts shares one runtime between every copy of the package in a provider host (a
 * program's own `pulumi.dynamic.Resource` wrapping these providers keeps the copy serialized at
 * its last update). The slot is still `_v1`, but its `lists` gained `runStartedAfterCall`: when a
 * copy from before that change made the runtime first, this one must still work.
 */
describe("a process runtime made by an older copy of the package", () => {
  const slot = "__pulumiEmailDeliveryRuntime_v1";
  const holder = globalThis as unknown as Record<string, unknown>;
  let saved: unknown;
  beforeEach(() => (saved = holder[slot]));
  afterEach(() => (holder[slot] = saved));

  it("does not break creates", async () => {
    // The shape of 790e68e's SingleFlight: run and invalidate only.
    const flights = new Map<string, Promise<unknown>>();
    holder[slot] = {
      httpAgent: new http.Agent(),
      httpsAgent: new https.Agent(),
      lists: {
        run: (key: string, start: () => Promise<unknown>) => {
          const promise = flights.get(key) ?? start();
          flights.set(key, promise);
          void promise.finally(() => flights.delete(key));
          return promise;
        },
        invalidate: (key: string) => flights.delete(key),
      },
    };
    const name = "old-copy.example.com";
    const server = await startScriptedServer([
      { status: 200, body: envelope([]) },
      { status: 200, body: envelope({ id: 1, uuid: "u-1", name, created_at: null, dns_records: [] }) },
    ]);
    try {
      const outcome = await createClient({ baseUrl: server.url, apiKey: "ScriptedKey0000000000001" })
        .createDomain(name)
        .then(
          (created) => created.domain.id,
          (error: Error) => error.message,
        );
      expect(outcome).toBe(1);
    } finally {
      await server.close();
    }
  });
});
