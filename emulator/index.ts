/**
 * `pulumi-email-delivery/emulator`: the local email service, Cloudflare DNS-records API and DNS
 * server, for developing and testing programs without the real services. Nothing of the package's
 * resources or providers loads it.
 *
 * @module pulumi-email-delivery/emulator
 */
export * from "./emulator";
export * from "./start";
export * from "./config";
export * from "./http/faults";
export * from "./http/request-log";
export type {
  CheckStatus,
  CloudflareDnsRecord,
  CredentialRecord,
  CredentialType,
  DomainRecord,
  EmulatorState,
  EndpointRecord,
  MessageRecord,
  RouteRecord,
  ServerRecord,
  ZoneRecord,
} from "./store/state";
export type { Admission, RateLimit, ServiceRateLimit } from "./http/rate-limit";
export type { ApiMessage } from "./cloudflare/envelope";
export type { AddDomainOptions, CloudflareSeeding, EmailApiSeeding } from "./seeding";
export type { CloudflareRecordFilter, CloudflareRecordInput } from "./cloudflare/seed";
export type { CloudflareRecordJson } from "./cloudflare/record-json";
export type { SeedRouteInput } from "./email-api/seed";
export type { CreatedDomainJson, DomainJson } from "./email-api/domains";
export type { RouteJson } from "./email-api/routes";
export type { DnsRecordJson, DnsRecordPurpose } from "./email-api/dns-records";
// What the seeding methods throw: Cloudflare's errors, the service's refusals.
export { CloudflareApiError } from "./cloudflare/envelope";
export { ApiError, ParameterError } from "./email-api/errors";
export { runCli } from "./cli";
