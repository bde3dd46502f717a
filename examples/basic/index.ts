/**
 * One sending domain whose records are published in Cloudflare and verified, and two inbound
 * routes: `support@` delivered to an endpoint with spam quarantined, and everything else held.
 *
 * Config (this project's namespace):
 *   domain            the sending domain, e.g. mail.example.com
 *   cloudflareZoneId  the Cloudflare zone that holds it
 *   endpointId        the endpoint that receives the mail (the service's numeric id)
 *   verifyTimeoutSeconds  optional, default 600
 * plus the connection settings: emailDelivery:baseUrl and emailDelivery:apiKey (or the
 * EMAIL_DELIVERY_BASE_URL / EMAIL_DELIVERY_API_KEY environment variables) and Cloudflare's own.
 */
import * as pulumi from "@pulumi/pulumi";
import { Domain, Route } from "pulumi-email-delivery";

const config = new pulumi.Config();
const endpointId = config.requireNumber("endpointId");

const domain = new Domain("mail", {
  name: config.require("domain"),
  cloudflare: { zoneId: config.require("cloudflareZoneId") },
  verification: { timeoutSeconds: config.getNumber("verifyTimeoutSeconds") ?? 600 },
});

// Both use `domain.domainId`, which resolves once the domain is verified: the service accepts
// routes only on verified domains.
const support = new Route("support", {
  name: "support",
  domainId: domain.domainId,
  endpointId,
  mode: "Endpoint",
  spamMode: "Quarantine",
});
const catchAll = new Route("catch-all", {
  name: "*",
  domainId: domain.domainId,
  endpointId,
  mode: "Hold",
});

export const domainName = config.require("domain");
export const domainId = domain.domainId;
export const verified = domain.verified;
export const checks = {
  spf: domain.spfStatus,
  dkim: domain.dkimStatus,
  mx: domain.mxStatus,
  returnPath: domain.returnPathStatus,
};
export const dnsRecords = domain.dnsRecords.apply((records) =>
  records.map((record) => {
    // TXT content (a DKIM key) is too long to show; a host name says where the record points.
    const target = record.type === "TXT" ? "" : ` → ${record.content}`;
    return `${record.type} ${record.name}${target}${record.priority ? ` (priority ${record.priority})` : ""}`;
  }),
);
export const routes = [support, catchAll].map((route) =>
  pulumi.all([route.name, route.routeId, route.mode, route.spamMode]).apply(([name, id, mode, spamMode]) => ({
    address: name === "*" ? "*@" : `${name}@`,
    id,
    mode,
    spamMode,
  })),
);
