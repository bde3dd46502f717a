import * as pulumi from "@pulumi/pulumi";
import { Emulator } from "../../emulator";

/** A resource of another provider, answered by a run's `hooks.newResource` (type `test:index:Late`). */
export class Late extends pulumi.CustomResource {
  constructor(name: string, args: { after: pulumi.Input<string> }) {
    super("test:index:Late", name, args);
  }
}

/** What the emulator holds for the domain `name`: the domain, its routes and its Cloudflare records. */
export function held(emulator: Emulator, name: string) {
  const domain = emulator.state.domains.find((d) => d.name === name);
  return {
    domains: domain ? [domain.name] : [],
    routes: emulator.state.routes.filter((r) => r.domainId === domain?.id).map((r) => r.name),
    records: emulator.state.cloudflare.records
      .filter((r) => r.name === name || r.name.endsWith(`.${name}`))
      .map((r) => `${r.type} ${r.name}`),
  };
}

/** `held` of a domain of which the emulator holds nothing. */
export const nothingHeld = { domains: [], routes: [], records: [] };
