import { ProviderHost, rpcSecret, startProviderHost, urnFor } from "../tests/support/provider-host";
import type { BenchEmulator } from "./emulator-process";
import { Fleet, Held, refreshIdeal, StepResult } from "./lifecycle";
import { readRecords } from "./records";
import { requestCounts, since } from "./setup";

/**
 * The same refresh through the real dynamic-provider host of `@pulumi/pulumi` (a child process
 * spoken to over gRPC, as the engine does), started in a project folder as the engine starts it:
 * every Read sent at once, each carrying `__provider` in its properties as the engine's state
 * does. Here the reads reach the providers one gRPC message at a time, not in one synchronous
 * burst, which is what decides whether they find a list still in flight to share.
 */
export interface RefreshHost {
  refresh(fleet: Fleet): Promise<StepResult>;
}

/**
 * `texts`: the domain and route resources' stored provider text; `cwd`: where the host runs (the
 * project the texts load their package from); `step`: the row's name in the report.
 */
export function refreshHost(
  emulator: BenchEmulator,
  options: { texts: { domain: string; route: string; verification: string }; cwd: string; step: string },
): RefreshHost {
  const { domain: domainText, route: routeText, verification: verificationText } = options.texts;
  return {
    async refresh(fleet) {
      // A refresh is a Pulumi command of its own: the engine starts a host for it.
      const host: ProviderHost = await startProviderHost({ cwd: options.cwd, callTimeoutMs: 120_000 });
      await host.configure({
        "emailDelivery:baseUrl": emulator.emailApi.url,
        "emailDelivery:apiKey": rpcSecret(emulator.emailApi.apiKey),
      });
      try {
        // State as the engine stores it: JSON values only (no undefined members).
        const stored = (held: Held) => JSON.parse(JSON.stringify(held.state)) as Record<string, unknown>;
        const reads = [
          ...fleet.domains.map((held, i) => ({
            held: { id: held.id, state: stored(held) },
            urn: urnFor("emailDelivery:Domain", `d${i}`),
            text: domainText,
          })),
          ...fleet.routes.map((held, i) => ({
            held: { id: held.id, state: stored(held) },
            urn: urnFor("emailDelivery:Route", `r${i}`),
            text: routeText,
          })),
          ...fleet.verifications.map((held, i) => ({
            held: { id: held.id, state: stored(held) },
            urn: urnFor("emailDelivery:DomainVerification", `v${i}`),
            text: verificationText,
          })),
        ];
        // The first read of each kind loads its provider's text, as at the start of a real refresh;
        // its requests count (a later read may reuse its lists). Then the other reads, all at once,
        // and the records' reads beside them (sent by the bench, as the Cloudflare provider would).
        await emulator.requests.clear();
        const start = performance.now();
        const firsts = new Set([0, fleet.domains.length, fleet.domains.length + fleet.routes.length]);
        const answers: { id?: string }[] = [];
        const readAt = async (i: number) => {
          const { held, urn, text } = reads[i];
          answers[i] = await host.read(held.id, urn, { ...held.state, __provider: text });
        };
        for (const i of firsts) if (i < reads.length) await readAt(i);
        await Promise.all([
          ...reads.map((_, i) => (firsts.has(i) ? undefined : readAt(i))),
          ...fleet.records.map((records) => readRecords(emulator, records)),
        ]);
        const ms = since(start);
        const recordTotal = fleet.records.reduce((sum, records) => sum + records.ids.length, 0);
        const gone = answers.filter((answer, i) => answer.id !== reads[i].held.id).length;
        if (gone) throw new Error(`the host's refresh reported ${gone} existing resources gone`);
        return {
          step: options.step,
          requests: await requestCounts(emulator),
          ideal: refreshIdeal(fleet.domains.length, recordTotal),
          attempts: NaN, // the clients run in the host process; only the emulator's log is seen
          retries: NaN,
          calls: reads.length,
          ms,
        };
      } finally {
        await host.stop();
      }
    },
  };
}
