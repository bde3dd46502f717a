import { Domain } from "../../provider";
import { useEmulator, uniqueDomain } from "../support/emulator";
import { held, Late } from "../support/kit-runs";
import { destroyRun, runProgram } from "../../testing";

/**
 * An error the program does not handle (thrown inside `apply`, an input that rejects) ends the
 * program under the engine, as a failed registration does: the language host exits at the first
 * unhandled rejection. The kit must stop the run then too, not wait for what is under way (a
 * verification polling for its 600 s) until `timeoutMs`, reporting a timeout that is not the cause.
 */

const emulator = useEmulator();

describe("an error thrown inside apply while a verification waits", () => {
  it("stops the run at once: the error is its only one, and destroyRun deletes all it made", async () => {
    const name = uniqueDomain("apply");
    const run = await runProgram(
      () => {
        const domain = new Domain("mail", {
          name,
          cloudflare: { zoneId: emulator().cloudflare.zones[0].id },
          verification: { timeoutSeconds: 600, pollIntervalSeconds: 1 },
        });
        // uuid is known once the domain is made, while its records are published and verified.
        new Late("late", {
          after: domain.uuid.apply((): string => {
            throw new Error("apply failed on purpose");
          }),
        });
        return { verified: domain.verified };
      },
      {
        mode: "live",
        emulator: emulator(),
        // Far beyond the test's limit: only a stop ends this run in time.
        timeoutMs: 600_000,
        hooks: {
          // The service never sees the DKIM record as published, so the verification waits on.
          cloudflareRecord: (body) =>
            body.name?.includes("._domainkey") ? { ...body, content: "v=DKIM1; p=wrong" } : body,
        },
      },
    );
    expect(run.errors).toEqual([{ source: "unhandled", message: "apply failed on purpose" }]);
    expect(run.ofType("test:index:Late")).toEqual([]);
    expect((await destroyRun(run, { mode: "live", emulator: emulator() })).errors).toEqual([]);
    expect(held(emulator(), name)).toEqual({ domains: [], routes: [], records: [] });
  }, 30_000);
});
