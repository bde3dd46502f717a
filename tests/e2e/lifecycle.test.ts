import { changesIn, outputsTable } from "../../demo/lifecycle";
import { describeWithPulumiCli } from "../support/pulumi-cli";

/**
 * The root project's program (the basic example), in a project with the package installed from
 * its tarball as a user installs it, through the real Pulumi CLI against the emulator:
 * preview → up → preview (no changes) → refresh → destroy, with a local file backend. It needs a
 * Pulumi CLI, which cannot be had on every machine (the GitHub workflow installs one); where none
 * exists it is skipped and says why.
 */
describeWithPulumiCli("root project through the Pulumi CLI", ({ emulator, openDemo }) => {
  it("previews, applies, shows no changes after, refreshes cleanly, and destroys everything", async () => {
    const demo = await openDemo();
    const log: string[] = [];
    const onOutput = (text: string) => void log.push(text);

    const preview = await demo.stack.preview({ onOutput });
    expect(changesIn(preview.changeSummary).create).toBeGreaterThanOrEqual(7); // stack, domain, records, verification, routes
    expect(emulator().state.domains).toEqual([]); // a preview changes nothing

    const up = await demo.stack.up({ onOutput });
    expect(up.outputs.verified.value).toBe(true);
    expect(up.outputs.checks.value).toEqual({ spf: "OK", dkim: "OK", mx: "OK", returnPath: "OK" });
    expect(up.outputs.routes.value).toEqual([
      expect.objectContaining({ address: "support@", mode: "Endpoint", spamMode: "Quarantine" }),
      expect.objectContaining({ address: "*@", mode: "Hold", spamMode: "Mark" }),
    ]);
    const domainName = up.outputs.domainName.value as string;
    const published = emulator().state.cloudflare.records.filter(
      (record) => record.name === domainName || record.name.endsWith(`.${domainName}`),
    );
    expect(published.map((record) => record.type).sort()).toEqual(["CNAME", "MX", "MX", "TXT", "TXT"]);
    console.log(outputsTable(up.outputs));

    const second = await demo.stack.preview({ onOutput });
    expect(changesIn(second.changeSummary)).toEqual({});

    const refresh = await demo.stack.refresh({ onOutput });
    expect(changesIn(refresh.summary.resourceChanges)).toEqual({});
    expect(changesIn((await demo.stack.preview({ onOutput })).changeSummary)).toEqual({});

    await demo.stack.destroy({ onOutput });
    expect(emulator().state.domains).toEqual([]);
    expect(emulator().state.routes).toEqual([]);
    expect(emulator().state.cloudflare.records).toEqual([]);
    expect(log.join("")).not.toContain(emulator().emailApi.apiKey);
  }, 600_000);
});
