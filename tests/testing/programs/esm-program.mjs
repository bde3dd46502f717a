// A Pulumi program written as an ES module (as in a project with "type": "module"): its exports
// are the stack's outputs.
import { Route } from "pulumi-email-delivery";

new Route("support", { name: "support", domainId: 1, endpointId: 1, mode: "Hold" });
export const address = "support";
