/**
 * `pulumi-email-delivery/emulator`: the local email service, Cloudflare DNS-records API and DNS
 * server, for developing and testing programs without the real services. Nothing of the package's
 * resources or providers loads it.
 *
 * @module pulumi-email-delivery/emulator
 */
// Named one by one: what a program's tests and a local stack use, not the emulator's helpers.
export type {
  Emulator,
  EmulatorCloudflare,
  EmulatorEmailApi,
  EmulatorNameserver,
  EmulatorOptions,
} from "./emulator";
export { startEmulator } from "./start";
export type { MailDnsConfig } from "./config";
export type { FaultDecision, FaultInjector, FaultOutcome, FaultRule } from "./http/faults";
export type { RequestEffect, RequestLog, RequestLogEntry } from "./http/request-log";
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
export type { Admission, RateLimit, RequestLimit, ServiceRateLimit } from "./http/rate-limit";
export type { AccountLimit, CloudflareAccountLimit } from "./http/account-limit";
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
