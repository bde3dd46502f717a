import { promises as fs } from "node:fs";
import * as path from "node:path";
import { npm } from "../../packaging/commands";
import { testedVersions } from "../../packaging/user-project";
import { describeWithPulumiCli } from "../support/pulumi-cli";

/**
 * The ready policy pack through the real Pulumi CLI: `pulumi preview --policy-pack
 * node_modules/pulumi-email-delivery/policy-pack` in the demo's project (the package installed from
 * its tarball, @pulumi/policy beside it as docs/policy.md says), with and without a policy config
 * file. It needs a Pulumi CLI, which cannot be had on every machine (the GitHub workflow installs
 * one); where none exists it is skipped and says why. tests/policy/pack.test.ts starts the same
 * folder as the engine does, over gRPC, on every machine.
 */
describeWithPulumiCli("the ready policy pack through the Pulumi CLI", ({ emulator, openDemo }) => {
  it("reports the basic example's advisories, and fails the preview on a mandatory violation", async () => {
    const demo = await openDemo();
    await npm(["install", "--no-save", ...testedVersions(["@pulumi/policy"])], { cwd: demo.projectDir });
    const pack = path.join(demo.projectDir, "node_modules/pulumi-email-delivery/policy-pack");

    // The demo's stack is not production: the production rules do not apply; the others advise.
    let log = "";
    const preview = await demo.stack.preview({
      policyPacks: [pack],
      onOutput: (text) => void (log += text),
    });
    expect(preview.changeSummary.create).toBeGreaterThan(0);
    expect(log).toContain("email-dmarc-published");
    expect(log).toContain('Domain "mail"');
    expect(log).toContain("declares no DMARC policy in this stack");
    expect(log).not.toContain("email-route-mode");

    // A config file that makes this stack production and the route rule mandatory.
    const config = path.join(demo.projectDir, "policy-config.json");
    await fs.writeFile(
      config,
      JSON.stringify({
        "email-route-mode": { enforcementLevel: "mandatory", productionStacks: [demo.name] },
      }),
    );
    log = "";
    await expect(
      demo.stack.preview({
        policyPacks: [pack],
        policyPackConfigs: [config],
        onOutput: (text) => void (log += text),
      }),
    ).rejects.toThrow();
    expect(log).toContain("email-route-mode");
    expect(log).toContain('Route "catch-all" (*) sends its mail to Hold');
    expect(emulator().state.domains).toEqual([]); // previews change nothing
  }, 600_000);
});
