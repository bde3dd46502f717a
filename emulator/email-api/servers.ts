import { randomUUID } from "node:crypto";
import { CredentialType, ServerRecord } from "../store/state";
import { Store } from "../store/store";
import { ActionRequest, ActionResult } from "./context";
import { validationTexts } from "./messages";
import { requiredString } from "./params";
import { alphabets, uniqueRandomString } from "./random";
import { Validation, assertFitsColumn, sameText } from "./validation";

/** `Server::MODES`: Development holds every message instead of sending it. */
const MODES = ["Live", "Development"];
const RESERVED_PERMALINKS = [
  "new",
  "all",
  "search",
  "stats",
  "edit",
  "manage",
  "delete",
  "destroy",
  "remove",
];

/** Where new servers' routes can deliver when there is no first server to copy from. */
const DEFAULT_ENDPOINTS = [
  { name: "Inbound webhook 1", url: "http://127.0.0.1:9/inbound/1" },
  { name: "Inbound webhook 2", url: "http://127.0.0.1:9/inbound/2" },
  { name: "Inbound webhook 3", url: "http://127.0.0.1:9/inbound/3" },
];

export interface NewServer {
  name: string;
  mode: string;
  apiKey: string;
  smtpKey: string;
  endpoints: readonly { name: string; url: string }[];
}

/**
 * Rails' `String#parameterize`: accents dropped, every run of other characters a single `-`,
 * no `-` at either end, lower case. Underscores survive (and then fail the permalink format).
 */
export function parameterize(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9\-_]+/gi, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^-|-$/g, "")
    .toLowerCase();
}

/** Postal's credential keys: 24 alphanumerics, unique case-insensitively. */
function newKey(store: Store): string {
  return uniqueRandomString(alphabets.alphanumeric, 24, (candidate) =>
    store.state.credentials.some((credential) => sameText(credential.key, candidate)),
  );
}

/** Adds a server with one API and one SMTP credential and its HTTP endpoints. No validation. */
export function insertServer(store: Store, spec: NewServer): ServerRecord {
  const server: ServerRecord = {
    id: store.nextId("server"),
    uuid: randomUUID(),
    name: spec.name,
    permalink: parameterize(spec.name),
    mode: spec.mode,
    createdAt: new Date().toISOString(),
  };
  store.state.servers.push(server);
  const credential = (type: CredentialType, key: string) => ({
    serverId: server.id,
    type,
    name: `${type} key`,
    key,
  });
  store.state.credentials.push(credential("API", spec.apiKey), credential("SMTP", spec.smtpKey));
  for (const endpoint of spec.endpoints) {
    store.state.endpoints.push({
      id: store.nextId("endpoint"),
      uuid: randomUUID(),
      serverId: server.id,
      ...endpoint,
    });
  }
  store.changed();
  return server;
}

/** `server/create` (X-Master-Key): Postal's Server validations, in its order. */
export function createServer({ store, params }: ActionRequest): ActionResult {
  const name = requiredString(params, "name");
  const mode = requiredString(params, "mode");
  const permalink = parameterize(name);
  const servers = store.state.servers;

  const validation = new Validation();
  if (servers.some((server) => sameText(server.name, name))) validation.add("Name", validationTexts.taken);
  if (!MODES.includes(mode)) validation.add("Mode", validationTexts.notInList);
  if (permalink === "") validation.add("Permalink", validationTexts.blank);
  if (servers.some((server) => sameText(server.permalink, permalink))) {
    validation.add("Permalink", validationTexts.taken);
  }
  if (!/^[a-z0-9-]*$/.test(permalink)) validation.add("Permalink", validationTexts.invalid);
  if (RESERVED_PERMALINKS.includes(permalink)) validation.add("Permalink", validationTexts.reserved);
  validation.throwIfFailed();
  assertFitsColumn("name", name);

  const first = [...servers].sort((a, b) => a.id - b.id)[0] as ServerRecord | undefined;
  const endpoints = first
    ? store.state.endpoints.filter((e) => e.serverId === first.id).map(({ name, url }) => ({ name, url }))
    : DEFAULT_ENDPOINTS;
  const apiKey = newKey(store);
  const smtpKey = newKey(store);
  const server = insertServer(store, { name, mode, apiKey, smtpKey, endpoints });
  return {
    data: {
      id: server.id,
      uuid: server.uuid,
      name: server.name,
      permalink: server.permalink,
      mode: server.mode,
      api_key: apiKey,
      smtp_key: smtpKey,
    },
    effect: { created: { kind: "server", id: server.id, name: server.name } },
  };
}
