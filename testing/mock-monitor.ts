import { errorMessage } from "./mock-values";
import type { Registration } from "./run-types";
import { mockMonitor } from "./pulumi-internals";

/** The run, as the monitor's registrations reach it. */
export interface RegisteringRun {
  readonly registrations: Registration[];
  /** Why a registration asked now is refused (see `LanguageHost.refusal`); undefined: it is taken. */
  refusal(): string | undefined;
  /** A registration the monitor answered with an error. */
  registrationFailed(registration: Registration): void;
}

/**
 * The registrations sent to Pulumi's mock monitor in a run. The mock API (`Mocks.newResource`)
 * hides parents and dependencies; the monitor's `registerResource` is wrapped to read them from the
 * request. The monitor calls `newResource` synchronously, so `current` pairs them.
 */
export class MonitorRegistrations {
  /** The registration whose `registerResource` is under way: the one `newResource` answers now. */
  current: Registration | undefined;
  /** Registrations sent and not answered yet. */
  pending = 0;
  /** Answers so far (a registration's `doneSeq`). */
  private doneCounter = 0;

  constructor(private readonly run: RegisteringRun) {}

  /** Wraps the monitor `setMocks` made for this run (each run's is new: nothing to undo). */
  watch(): void {
    const monitor = mockMonitor();
    const original = monitor.registerResource.bind(monitor);
    monitor.registerResource = (req, callback) => {
      // Refused without a record: the engine never sees what a stopped program declares.
      const refusal = this.run.refusal();
      if (refusal) {
        callback(new Error(refusal));
        return Promise.resolve();
      }
      const propertyDependencies: Record<string, string[]> = {};
      req.getPropertydependenciesMap().forEach((deps, key) => {
        propertyDependencies[key] = deps.getUrnsList();
      });
      const registration: Registration = {
        seq: this.run.registrations.length + 1,
        type: req.getType(),
        name: req.getName(),
        custom: req.getCustom(),
        parent: req.getParent() || undefined,
        dependencies: req.getDependenciesList(),
        propertyDependencies,
        provider: req.getProvider() || undefined,
        inputs: {},
        secretInputs: [],
        status: "pending",
      };
      this.run.registrations.push(registration);
      this.pending += 1;
      this.current = registration;
      try {
        return original(req, (error, response) => {
          this.pending -= 1;
          registration.doneSeq = ++this.doneCounter;
          if (error) {
            registration.status = "failed";
            registration.error = errorMessage(error);
            this.run.registrationFailed(registration);
          } else {
            registration.status = "created";
            registration.urn = response?.getUrn();
          }
          callback(error, response);
        });
      } finally {
        this.current = undefined;
      }
    };
  }
}
