/**
 * One program, a stack per stage. Each stack file picks the email service (base URL and key),
 * the domain (production on the base domain, staging on `staging.<base domain>`) and how long
 * and for which checks to wait. Nothing in the program knows which stage it is.
 *
 * Config (this project's namespace):
 *   baseDomain        e.g. mail.example.com
 *   subdomain         optional; "staging" gives staging.mail.example.com
 *   cloudflareZoneId  the zone holding the base domain
 *   endpointId        the endpoint that receives support@ mail
 *   verification      optional { checks, timeoutSeconds, pollIntervalSeconds }
 */
import * as pulumi from "@pulumi/pulumi";
import { CheckName, Domain, Route } from "pulumi-email-delivery";

interface VerificationConfig {
  checks?: CheckName[];
  timeoutSeconds?: number;
  pollIntervalSeconds?: number;
}

const config = new pulumi.Config();
const baseDomain = config.require("baseDomain");
const subdomain = config.get("subdomain");
const domainName = subdomain ? `${subdomain}.${baseDomain}` : baseDomain;

const domain = new Domain("mail", {
  name: domainName,
  cloudflare: { zoneId: config.require("cloudflareZoneId") },
  verification: config.getObject<VerificationConfig>("verification") ?? {},
});

const support = new Route("support", {
  name: "support",
  domainId: domain.domainId,
  endpointId: config.requireNumber("endpointId"),
  spamMode: "Quarantine",
});

export const stack = pulumi.getStack();
export const mailDomain = domainName;
export const verified = domain.verified;
export const checks = {
  spf: domain.spfStatus,
  dkim: domain.dkimStatus,
  mx: domain.mxStatus,
  returnPath: domain.returnPathStatus,
};
export const supportRouteId = support.routeId;
