// Run by tests/testing/console-under-node.test.ts with plain Node (as under `node --test`, where
// the kit, the program and the providers share one console): prints the run's logs as JSON. The
// kit is the package's build (the suite's setup builds it), required by name as a user does.
const pulumi = require("@pulumi/pulumi");
const kit = require("pulumi-email-delivery/testing");

const provider = {
  async check(_olds, news) {
    console.log("provider check says hi");
    pulumi.log.info("provider logs through pulumi");
    return { inputs: news };
  },
  async create() {
    return { id: "x", outs: {} };
  },
};
class Logged extends pulumi.dynamic.Resource {}

kit
  .runProgram(
    () => {
      console.log("program says hello");
      pulumi.log.info("program plan");
      new Logged(provider, "logged", {});
      return {};
    },
    { mode: "preview" },
  )
  .then((run) => {
    process.stdout.write(
      `RESULT ${JSON.stringify({ providerLogs: run.providerLogs, programLogs: run.programLogs, errors: run.errors })}\n`,
    );
  });
