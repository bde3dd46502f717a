import * as pulumi from "@pulumi/pulumi";
import { processState } from "../process-state";

/**
 * Routes declared in this program run, so that two `Route` resources declaring one route (same
 * name, same domain) fail before anything is sent. The service holds one route per name and
 * domain: the second create would fail, and with `adopt` both resources would manage one route,
 * so destroying either would delete the other's.
 *
 * Kept per run: a run has one resource monitor (each `setMocks` makes a new one), and
 * process-wide (`ProcessState.routeClaims`) so every copy of this package in the program shares it.
 */
function claimsOfThisRun(): Map<string, RouteClaimant> | undefined {
  const monitor = pulumi.runtime.getMonitor();
  if (!monitor) return undefined;
  const runs = (processState().routeClaims ??= new WeakMap());
  let claims = runs.get(monitor);
  if (!claims) runs.set(monitor, (claims = new Map()));
  return claims;
}

/** One Route resource, as a claim holder: its identity, and its name for messages. */
export interface RouteClaimant {
  readonly resource: string;
}

/**
 * Records that the Route resource `claimant` declares route `name` on domain `domainId`; throws
 * naming both resources when another Route of this run already does. Route names compare without
 * case, as the service compares them.
 */
export function claimRoute(claimant: RouteClaimant, name: string, domainId: number): void {
  const claims = claimsOfThisRun();
  if (!claims) return;
  const key = `${domainId}/${name.toLowerCase()}`;
  const holder = claims.get(key);
  if (holder !== undefined && holder !== claimant) {
    const other =
      holder.resource === claimant.resource
        ? `another Route resource also named "${holder.resource}" (under another parent)`
        : `Route "${holder.resource}"`;
    throw new Error(
      `Route "${claimant.resource}" declares the route "${name}" on domain ${domainId}, which ${other} already declares. ` +
        "The service holds one route per name and domain, so the two would fight over one route (and destroying either " +
        "would delete it). Remove one of them, or give them different names.",
    );
  }
  claims.set(key, claimant);
}
