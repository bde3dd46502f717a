import { ServiceDefinition, ServiceRequest, ServiceResponse } from "../http/service";
import { authenticateMaster, authenticateServer } from "./auth";
import { ActionResult, EmailApiContext, MasterAction, ServerAction } from "./context";
import { checkDomain, createDomain, deleteDomain, listDomains } from "./domains";
import { envelope, htmlResponse, plainResponse, startTimer } from "./envelope";
import { ApiError, ParameterError } from "./errors";
import { httpTexts } from "./messages";
import { Params, ParamsReading, readParams } from "./params";
import { createRoute, deleteRoute, listRoutes, updateRoute } from "./routes";
import { sendMessage } from "./send";
import { createServer } from "./servers";

const PREFIX = "/api/v1/";
/** Postal's legacy routes answer these methods alike; anything else is a routing 404. */
const METHODS = new Set(["GET", "POST", "PUT", "PATCH"]);

type Operation = { auth: "server"; run: ServerAction } | { auth: "master"; run: MasterAction };

/** Every endpoint, named as in the request log (`domains/create`, …). */
const OPERATIONS: Record<string, Operation> = {
  "domains/list": { auth: "server", run: listDomains },
  "domains/create": { auth: "server", run: createDomain },
  "domains/check": { auth: "server", run: checkDomain },
  "domains/delete": { auth: "server", run: deleteDomain },
  "routes/list": { auth: "server", run: listRoutes },
  "routes/create": { auth: "server", run: createRoute },
  "routes/update": { auth: "server", run: updateRoute },
  "routes/delete": { auth: "server", run: deleteRoute },
  "send/message": { auth: "server", run: sendMessage },
  "server/create": { auth: "master", run: createServer },
};

/**
 * The email service's HTTP API, answering as Postal's legacy API does: the JSON envelope with
 * HTTP 200 for everything a controller renders (errors included), plain Rails pages for routing
 * failures, unparsable JSON and crashes.
 */
export function emailApiService(context: EmailApiContext): ServiceDefinition {
  return {
    name: "email-api",
    endpointOf: operationName,
    handle: (request, endpoint) => handle(context, request, endpoint),
    // A proxy in front would answer these: Postal itself has no API rate limiting (no throttle anywhere in its app or config).
    faultResponse: (status) =>
      plainResponse(status, status === 429 ? httpTexts.tooManyRequests : httpTexts.serviceUnavailable),
    tooLargeResponse: () => htmlResponse(413, httpTexts.payloadTooLarge),
    internalErrorResponse: () => htmlResponse(500, httpTexts.internalError),
  };
}

function operationName(method: string, pathname: string): string {
  if (!METHODS.has(method.toUpperCase()) || !pathname.startsWith(PREFIX)) return "unknown";
  const name = pathname.slice(PREFIX.length).replace(/\/$/, "");
  return Object.hasOwn(OPERATIONS, name) ? name : "unknown";
}

async function handle(
  context: EmailApiContext,
  request: ServiceRequest,
  endpoint: string,
): Promise<ServiceResponse> {
  const elapsed = startTimer();
  const operation = Object.hasOwn(OPERATIONS, endpoint) ? OPERATIONS[endpoint] : undefined;
  if (!operation) return htmlResponse(404, httpTexts.notFound);

  // Rails parses the body before any filter runs, so bad JSON wins over a missing key.
  const reading = readParams(request);
  if (reading.kind === "malformed-body") return htmlResponse(400, httpTexts.badRequest);

  try {
    const result = await run(operation, context, request, reading);
    return { ...envelope("success", result.data, elapsed), effect: result.effect };
  } catch (error) {
    // Postal merges `code` into the action's data last.
    if (error instanceof ApiError) {
      return envelope("error", { ...error.details, code: error.code }, elapsed);
    }
    if (error instanceof ParameterError) {
      return envelope("parameter-error", { message: error.message }, elapsed);
    }
    throw error;
  }
}

type ReadableParams = Exclude<ParamsReading, { kind: "malformed-body" }>;

/** Authentication runs first, as Postal's `before_action`; a failure stops the action. */
async function run(
  operation: Operation,
  context: EmailApiContext,
  request: ServiceRequest,
  reading: ReadableParams,
): Promise<ActionResult> {
  if (operation.auth === "master") {
    authenticateMaster(context.masterKey, request.headers);
    return operation.run({ ...context, params: paramsOf(reading) });
  }
  const server = authenticateServer(context.store, request.headers);
  return operation.run({ ...context, params: paramsOf(reading), server });
}

/** The params, or the error Postal's `JSON.parse` raises inside the action (so: HTTP 500). */
function paramsOf(reading: ReadableParams): Params {
  if (reading.kind === "malformed-field") throw reading.error;
  return reading.params;
}
