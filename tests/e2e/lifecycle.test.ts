import type { PulumiCommand } from "@pulumi/pulumi/automation";
import { changesIn, DemoStack, openDemoStack, outputsTable } from "../../demo/lifecycle";
import { findPulumiCli } from "../../demo/pulumi-cli";
import { useEmulator } from "../support/emulator";
import { pulumiCliHere } from "../support/pulumi-cli";

/**
 * The root project's program (the basic example), in a project with the package installed from
 * its tarball as a user installs it, through the real Pulumi CLI against the emulator:
 * preview → up → preview (no changes) → refresh → destroy, with a local file backend. It needs a
 * Pulumi CLI, which cannot be had on every machine (the GitHub workflow installs one); where none
 * exists it is skipped and says why.
 */
const cli = pulumiCliHere();
// CI that installs the CLI sets this, so a detection slip fails the run instead of skipping.
if (!cli.available && process.env.EMAIL_DELIVERY_E2E === "require") {
  throw new Error(`EMAIL_DELIVERY_E2E=require, but ${cli.reason}`);
}
if (!cli.available) console.warn(`End-to-end test skipped: ${cli.reason}. Install the Pulumi CLI to run it.`);

(cli.available ? describe : describe.skip)(
  `root project through the Pulumi CLI${cli.available ? "" : ` — skipped: ${cli.reason}`}`,
  () => {
    const emulator = useEmulator();
    let command: PulumiCommand;
    let demo: DemoStack | undefined;

    beforeAll(async () => {
      const found = await findPulumiCli();
      if (!found.found) throw new Error(found.reason);
      command = found.command;
    });
    afterAll(() => demo?.dispose());

    it("previews, applies, shows no changes after, refreshes cleanly, and destroys everything", async () => {
      demo = await openDemoStack(command, emulator(), { build: false }); // jest's setup built dist/
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
  },
);
