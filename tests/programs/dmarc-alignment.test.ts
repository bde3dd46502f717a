import { Domain, DomainArgs } from "../../provider";
import { useEmulator } from "../support/emulator";
import { runProgram } from "../../testing";

/**
 * `aspf=s` never aligns with the service's envelope sender (`psrp.<name>`): an enforcing DMARC
 * policy then rests on DKIM alone, which the preview says when the verification does not wait for
 * DKIM (receivers' judgement at the wait's end decides it all the same).
 */

const emulator = useEmulator();

async function previewLogs(args: Partial<DomainArgs>): Promise<string> {
  const zoneId = emulator().cloudflare.zones[0].id;
  const run = await runProgram(
    () => {
      new Domain("mail", { name: "strict.example.com", cloudflare: { zoneId }, ...args });
      return {};
    },
    { mode: "preview", emulator: emulator() },
  );
  expect(run.errors).toEqual([]);
  return run.programLogs.join("\n");
}

it("says so when verification.checks leaves dkim out, and when verification is off", async () => {
  const dmarc = { policy: "reject", spfAlignment: "strict" } as const;
  expect(await previewLogs({ dmarc, verification: { checks: ["spf", "mx", "returnPath"] } })).toContain(
    'Domain mail: dmarc.spfAlignment is "strict", so the service\'s mail (its envelope sender is at the return path, ' +
      "psrp.<name>) passes DMARC p=reject by DKIM alone, and verification.checks leaves dkim out",
  );
  expect(await previewLogs({ dmarc, verification: false })).toContain(
    "by DKIM alone, and verification is off",
  );
});

it("says nothing when the verification waits for DKIM, or the policy only asks for reports", async () => {
  expect(await previewLogs({ dmarc: { policy: "reject", spfAlignment: "strict" } })).not.toContain(
    "by DKIM alone",
  );
  expect(
    await previewLogs({
      dmarc: { policy: "none", spfAlignment: "strict" },
      verification: { checks: ["spf"] },
    }),
  ).not.toContain("by DKIM alone");
});
