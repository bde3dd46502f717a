import * as pulumi from "@pulumi/pulumi";
import { Emulator } from "../../emulator";
import { Domain, Route } from "../../provider";
import { useEmulator, uniqueDomain } from "../support/emulator";
import { held, Late, nothingHeld } from "../support/kit-runs";
import { destroyRun, ProgramRun, runProgram } from "../../testing";

/**
 * A run that ends early stops its program as the engine stops a failed update: nothing more is
 * registered or created, what is under way finishes, waits end, and the run holds everything it
 * made. The next run is never refused for it, and never receives its registrations. Each cause is
 * one error.
 */

// Two nameservers: the service's check asks the first, the wait's DNS the second (see `splitView`).
const emulator = useEmulator({ nameservers: 2 });

/** Live runs of the file's tests, destroyed after each test whatever it asserted. */
const liveRuns: ProgramRun<string>[] = [];
afterEach(async () => {
  for (const nameserver of emulator().dns.nameservers) nameserver.release();
  for (const run of liveRuns.splice(0)) await destroyRun(run, { mode: "live", emulator: emulator() });
});

/**
 * A wait that polls the service at every poll and never passes: the service's nameserver is held
 * (it never sees the records), while the wait's DNS (the second) serves them all, so the wait,
 * which asks DNS first, asks the service each time. Returns the run's config.
 */
function splitView(): Record<string, string> {
  const [servicesView, waitsView] = emulator().dns.nameservers;
  servicesView.hold();
  return {
    "emailDelivery:dnsNameservers": waitsView.address,
    "emailDelivery:dnsResolver": waitsView.address,
  };
}

/** A few turns of the event loop: long enough for a registration left going to be sent. */
async function turns(count = 20): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
}

function domainArgs(emulator: Emulator, name: string, timeoutSeconds = 600) {
  return {
    name,
    cloudflare: { zoneId: emulator.cloudflare.zones[0].id },
    verification: { timeoutSeconds, pollIntervalSeconds: 1 },
  };
}

/** Until `predicate` holds, checking at each turn of the event loop (bounded by jest's timeout). */
async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("a program that throws after declaring a Domain", () => {
  it("creates nothing, reports the one error, and leaves nothing for the next run", async () => {
    const name = uniqueDomain("throws");
    const run = await runProgram(
      () => {
        new Domain("mail", domainArgs(emulator(), name));
        throw new Error("the program's own mistake");
      },
      { mode: "live", emulator: emulator() },
    );
    liveRuns.push(run);
    expect(run.errors).toEqual([{ source: "program", message: "the program's own mistake" }]);
    const registered = run.registrations.map((r) => `${r.type}::${r.name}`);

    // Before, the Domain's children were registered (and its domain and 5 records created) after
    // the run had returned, and the next run received them.
    await turns();
    const next = await runProgram(() => ({}), { mode: "preview", emulator: emulator() });
    expect(next.errors).toEqual([]);
    expect(next.registrations.map((r) => r.type)).toEqual(["pulumi:pulumi:Stack"]);
    expect(run.registrations.map((r) => `${r.type}::${r.name}`)).toEqual(registered);
    expect(held(emulator(), name)).toEqual(nothingHeld);
    expect(await destroyRun(run, { mode: "live", emulator: emulator() })).toEqual({
      deleted: [],
      errors: [],
    });
  });
});

describe("a registration that fails while a verification waits", () => {
  it("ends the wait at once, reports only the failure, and destroyRun deletes all the run made", async () => {
    const name = uniqueDomain("stops");
    // The failure comes once the verification is polling (a check reached the service): without a
    // stop, the wait would poll for its 600 s; the run returns well within jest's limit instead.
    const checksBefore = emulator().requests.count("domains/check");
    const run = await runProgram(
      () => {
        const domain = new Domain("mail", domainArgs(emulator(), name));
        new Late("late", { after: "nothing" }); // registered at once; fails once the wait polls
        return { verified: domain.verified };
      },
      {
        mode: "live",
        emulator: emulator(),
        // The service never sees the domain's records, so the wait goes on.
        config: splitView(),
        hooks: {
          newResource: async (args) => {
            if (args.type !== "test:index:Late") return undefined;
            await until(() => emulator().requests.count("domains/check") > checksBefore);
            throw new Error("Late failed on purpose");
          },
        },
      },
    );
    liveRuns.push(run);
    expect(run.errors).toEqual([
      { source: "registration", subject: "test:index:Late::late", message: "Late failed on purpose" },
    ]);
    const verification = run.ofType("email-delivery:DomainVerification")[0];
    expect(verification.status).toBe("failed");
    expect(verification.error).toContain("stopped by the test kit");
    expect(run.ofType("email-delivery:Route")).toEqual([]);

    const destroyed = await destroyRun(run, { mode: "live", emulator: emulator() });
    expect(destroyed.errors).toEqual([]);
    expect(held(emulator(), name)).toEqual(nothingHeld);
  }, 60_000);
});

describe("a run not awaited (its test timed out) when the next begins", () => {
  it("is stopped, and the next run goes ahead with only its own registrations", async () => {
    const slow = uniqueDomain("slow");
    const checksBefore = emulator().requests.count("domains/check");
    const first = runProgram(
      () => {
        const domain = new Domain("slow", domainArgs(emulator(), slow));
        new Route("support", {
          name: "support",
          domainId: domain.domainId,
          endpointId: emulator().state.endpoints[0].id,
          mode: "Hold",
        });
        return {};
      },
      { mode: "live", emulator: emulator(), config: splitView() },
    );
    await until(() => emulator().requests.count("domains/check") > checksBefore);

    const second = await runProgram(() => ({ answer: 42 }), { mode: "preview", emulator: emulator() });
    expect(second.errors).toEqual([]);
    expect(second.outputs).toEqual({ answer: 42 });
    expect(second.registrations.map((r) => r.type)).toEqual(["pulumi:pulumi:Stack"]);

    const stopped: ProgramRun<string> = await first;
    liveRuns.push(stopped);
    expect(stopped.errors).toEqual([
      {
        source: "stopped",
        message: expect.stringContaining("runProgram was called again before this run returned"),
      },
    ]);
    expect(stopped.ofType("email-delivery:Route")).toEqual([]);
    expect((await destroyRun(stopped, { mode: "live", emulator: emulator() })).errors).toEqual([]);
    expect(held(emulator(), slow)).toEqual(nothingHeld);
  }, 60_000);
});

describe("one error per cause", () => {
  it("a bad input is one registration error, without serialization chains or unresolved outputs", async () => {
    const run = await runProgram(
      () => {
        // An output: a plain name is refused by the component itself, before anything is registered.
        const name = pulumi.output("Mail.Example.com");
        const domain = new Domain("mail", { ...domainArgs(emulator(), "mail.example.com"), name });
        return { spf: domain.spfStatus, records: domain.dnsRecords };
      },
      { mode: "preview", emulator: emulator() },
    );
    expect(run.errors).toEqual([
      {
        source: "registration",
        subject: "pulumi-nodejs:dynamic/email-delivery:Domain::mail",
        message: 'name: must be lowercase (the service refuses upper case): use "mail.example.com"',
      },
    ]);
  });

  it("two resources failing alike are two errors", async () => {
    const run = await runProgram(
      () => {
        // Declared together, so both are registered before either fails.
        new Route("first", { name: "bad name!", domainId: 1, endpointId: 1 });
        new Route("second", { name: "other name!", domainId: 1, endpointId: 1 });
        return {};
      },
      { mode: "preview", emulator: emulator() },
    );
    expect(run.errors.map((e) => e.subject)).toEqual([
      "pulumi-nodejs:dynamic/email-delivery:Route::first",
      "pulumi-nodejs:dynamic/email-delivery:Route::second",
    ]);
  });
});
