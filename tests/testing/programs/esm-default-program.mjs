// An ES-module program whose default export is the program function (Pulumi calls it).
import { Route } from "pulumi-email-delivery";

export default async () => {
  new Route("support", { name: "support", domainId: 1, endpointId: 1, mode: "Hold" });
  return { address: "support" };
};
