/**
 * The package: resources for programs, their dynamic providers (for tests and advanced use), and
 * the API client as a namespace (its `Domain`/`Route` types are the service's records, not resources).
 *
 * @module pulumi-email-delivery
 */
export * from "./resources";
export * from "./dynamic";
export * as client from "./client";
export {
  ROUTE_MODES,
  SPAM_MODES,
  type CheckStatus,
  type DnsRecord,
  type DomainCheck,
  type KnownRouteMode,
  type KnownSpamMode,
  type RouteMode,
  type SpamMode,
} from "./client";
export { CHECK_NAMES, type CheckName } from "./inputs";
export { DMARC_ALIGNMENTS, DMARC_FAILURE_REPORT_OPTIONS, DMARC_POLICIES, quoteTxt, unquoteTxt } from "./dns";
export type {
  ClaimPolicy,
  DmarcAlignment,
  DmarcArgs,
  DmarcFailureReportOption,
  DmarcPolicy,
  ExistingRecordPolicy,
  MxExistingRecordPolicy,
  RecordPurpose,
  SpfExistingRecordPolicy,
} from "./dns";
export type { ReceiversVerdicts, ReceiverVerdict } from "./receivers/judge";
