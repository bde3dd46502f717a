import {
  forgetLeakCandidates,
  LOAD_INTERNALS,
  PROJECT_INTERNALS,
  RegisterResourceCallback,
  RegisterResourceRequest,
  RUN_INTERNALS,
} from "../../testing/pulumi-internals";
import { internalsProblems, PulumiSdk } from "../../testing/pulumi-sdk-check";

/** The parts of `@pulumi/pulumi`'s public API the checks use to make a run's monitor. */
interface PulumiApi {
  runtime: {
    setMocks(
      mocks: { newResource(args: { inputs: unknown }): unknown; call(): unknown },
      project: string,
      stack: string,
      preview: boolean,
    ): Promise<void>;
    getMonitor(): {
      registerResource(req: RegisterResourceRequest, callback: RegisterResourceCallback): unknown;
    };
  };
  CustomResource: new (type: string, name: string, props: Record<string, unknown>) => unknown;
}

/**
 * Everything the kit needs from `sdk` (pulumi-internals.ts), as it uses it: the internals it
 * checks at load and in a project, then, under `setMocks`, those a run has, and the one thing no
 * shape shows: the mock monitor calls the mocks' `newResource` before its first `await`, with a
 * request whose getters say what was registered. Returns the problems (none: the kit runs with it).
 * It makes a run of `sdk`'s mocks, as the kit's own runs do.
 */
export async function pulumiSdkProblems(sdk: PulumiSdk): Promise<string[]> {
  const problems = [...internalsProblems(sdk, LOAD_INTERNALS), ...internalsProblems(sdk, PROJECT_INTERNALS)];
  if (problems.length > 0) return problems;
  const pulumi = sdk.pulumi as PulumiApi;
  let answered = false;
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        answered = true;
        return { id: "thing-id", state: args.inputs };
      },
      call: () => ({}),
    },
    "project",
    "stack",
    false,
  );
  problems.push(...internalsProblems(sdk, RUN_INTERNALS));
  if (problems.length > 0) return problems;

  const monitor = pulumi.runtime.getMonitor();
  const original = monitor.registerResource.bind(monitor);
  const seen = new Promise<{ type: string; synchronous: boolean }>((resolve) => {
    monitor.registerResource = (req, callback) => {
      const sent = original(req, callback);
      req.getPropertydependenciesMap().forEach((deps) => deps.getUrnsList());
      resolve({ type: req.getType(), synchronous: answered });
      return sent;
    };
  });
  new pulumi.CustomResource("kit:index:Thing", "thing", { size: 1 });
  const registration = await seen;
  // What the resource left pending is no leak of the caller's (the kit forgets a stopped run's too).
  forgetLeakCandidates();
  if (registration.type !== "kit:index:Thing")
    problems.push(`RegisterResourceRequest.getType(): ${registration.type}, not the type registered`);
  if (!registration.synchronous)
    problems.push("the mock monitor's registerResource: newResource not called before its first await");
  return problems;
}
