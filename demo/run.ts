/**
 * `npm run demo`: the basic example, end to end, against the local emulator, with the package
 * installed as users install it (packed, then installed from the tarball into a throwaway project).
 * Finds a Pulumi CLI, starts the emulator, then preview → up → preview (must show no changes) →
 * a table of the domain's checks, records and routes → destroy, and stops the emulator. State
 * lives in a temporary local backend; the services contacted are the emulator's (and npm's
 * registry for what its cache lacks).
 *
 * Where no Pulumi CLI can be had, it says so in one line and runs the same program in-process
 * through the package's test kit instead (demo/in-process.ts): every line of that run says so.
 */
import { startEmulator } from "../emulator";
import { runInProcess } from "./in-process";
import { changesIn, openDemoStack, outputsTable } from "./lifecycle";
import { findPulumiCli, installHint } from "./pulumi-cli";

async function main(): Promise<number> {
  const cli = await findPulumiCli();
  if (!cli.found) {
    console.log(
      `No Pulumi CLI (${cli.reason}), so this is not \`pulumi up\`: the same program runs in this process ` +
        `through pulumi-email-delivery/testing instead. For the real thing, ${installHint()}.`,
    );
    return runInProcess();
  }
  console.log(`Using the Pulumi CLI from ${cli.source}.`);

  const emulator = await startEmulator();
  console.log(
    `Emulator: email API ${emulator.emailApi.url}, Cloudflare ${emulator.cloudflare.url}, DNS ${emulator.dns.address}`,
  );
  const demo = await openDemoStack(cli.command, emulator, { log: (line) => console.log(line) }).catch(
    async (error) => {
      await emulator.stop();
      throw error;
    },
  );
  console.log(`Project: ${demo.projectDir} (pulumi-email-delivery installed from its tarball)`);
  const onOutput = (text: string) => process.stdout.write(text);
  try {
    step("preview");
    await demo.stack.preview({ onOutput, color: "always" });

    step("up");
    const up = await demo.stack.up({ onOutput, color: "always" });
    if (up.outputs.verified?.value !== true) {
      throw new Error(`up finished but the domain is not verified:\n${outputsTable(up.outputs)}`);
    }

    step("preview again: nothing may change");
    const second = await demo.stack.preview({ onOutput, color: "always" });
    const changes = changesIn(second.changeSummary);
    if (Object.keys(changes).length > 0) {
      throw new Error(`the second preview wants changes (${JSON.stringify(changes)}): something drifts`);
    }

    step("result");
    console.log(outputsTable(up.outputs));

    step("destroy");
    await demo.stack.destroy({ onOutput, color: "always" });
    return 0;
  } finally {
    await demo.dispose();
    await emulator.stop();
  }
}

function step(title: string): void {
  console.log(`\n=== ${title} ${"=".repeat(Math.max(0, 70 - title.length))}`);
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`\ndemo failed: ${error.message.split("\n").slice(0, 20).join("\n")}`);
    process.exit(1);
  },
);
