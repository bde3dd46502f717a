import { z } from "zod";
import { EmulatorState } from "./state";

/**
 * The shape of a `--state` file, checked on load so that a hand-edited or foreign file stops the
 * start with a message naming the field, instead of a handler failing on it later. Objects are
 * strict: a field the emulator does not know is refused rather than dropped on the next write.
 * A field added to `EmulatorState` must be added here too (the reload test in
 * tests/emulator/state-file.test.ts holds every kind of record, so it fails otherwise).
 */
const id = z.int().min(1);
const text = z.string();
const optionalText = z.string().nullable();
const checkStatus = z.enum(["OK", "Missing", "Invalid"]).nullable();

const server = z.strictObject({ id, uuid: text, name: text, permalink: text, mode: text, createdAt: text });
const credential = z.strictObject({ serverId: id, type: z.enum(["API", "SMTP"]), name: text, key: text });
const endpoint = z.strictObject({ id, uuid: text, serverId: id, name: text, url: text });
const domain = z.strictObject({
  id,
  uuid: text,
  serverId: id,
  name: text,
  dkimIdentifierString: text,
  dkimPublicKey: text,
  dkimPrivateKeyPem: text,
  spfStatus: checkStatus,
  spfError: optionalText,
  dkimStatus: checkStatus,
  dkimError: optionalText,
  mxStatus: checkStatus,
  mxError: optionalText,
  returnPathStatus: checkStatus,
  returnPathError: optionalText,
  dnsCheckedAt: optionalText,
  createdAt: text,
});
const route = z.strictObject({
  id,
  uuid: text,
  serverId: id,
  domainId: id,
  endpointId: id.nullable(),
  name: text,
  mode: text,
  spamMode: text,
  token: text,
  createdAt: text,
});
const message = z.strictObject({
  id,
  token: text,
  messageId: text,
  serverId: id,
  rcptTo: text,
  from: text,
  sender: optionalText,
  to: z.array(text),
  cc: z.array(text),
  bcc: z.array(text),
  replyTo: optionalText,
  subject: optionalText,
  tag: optionalText,
  plainBody: optionalText,
  htmlBody: optionalText,
  headers: z.record(z.string(), text),
  attachments: z.array(z.strictObject({ name: text, contentType: text, size: z.int().min(0) })),
  createdAt: text,
  // Absent from the files of emulators that did not keep them yet.
  raw: text.default(""),
  mailFrom: text.default(""),
  clientIp: text.default(""),
  helo: text.default(""),
});
const zone = z.strictObject({ id: text, name: text, createdOn: text });
const record = z.strictObject({
  id: text,
  zoneId: text,
  name: text,
  type: text,
  content: text,
  ttl: z.int(),
  proxied: z.boolean(),
  priority: z.int().nullable(),
  comment: optionalText,
  tags: z.array(text),
  settings: z.record(z.string(), z.unknown()),
  createdOn: text,
  modifiedOn: text,
  commentModifiedOn: optionalText,
  tagsModifiedOn: optionalText,
});

const KINDS = ["server", "endpoint", "domain", "route", "message"] as const;

const stateSchema: z.ZodType<EmulatorState> = z
  .strictObject({
    version: z.literal(1),
    nextId: z.strictObject({ server: id, endpoint: id, domain: id, route: id, message: id }),
    servers: z.array(server),
    credentials: z.array(credential),
    endpoints: z.array(endpoint),
    domains: z.array(domain),
    routes: z.array(route),
    messages: z.array(message),
    signingKey: z.strictObject({ publicKey: text, privateKeyPem: text }).optional(),
    cloudflare: z.strictObject({ zones: z.array(zone), records: z.array(record) }),
  })
  .superRefine((state, context) => {
    // A counter at or below an existing id would hand that id out again.
    for (const kind of KINDS) {
      const highest = Math.max(0, ...state[`${kind}s`].map((item) => item.id));
      if (state.nextId[kind] <= highest) {
        context.addIssue({
          code: "custom",
          path: ["nextId", kind],
          message: `must be greater than every ${kind}'s id (the highest is ${highest})`,
        });
      }
    }
    // The emulator prints the first server's API key for clients: it must have one.
    const first = state.servers[0];
    if (first && !state.credentials.some((c) => c.serverId === first.id && c.type === "API")) {
      context.addIssue({
        code: "custom",
        path: ["credentials"],
        message: `must hold an API credential for server ${first.id} (the key the emulator prints)`,
      });
    }
  });

/**
 * The state held in a parsed `--state` file. Throws an error naming the file and up to three
 * problems; values are never quoted (the file holds keys).
 */
export function parseState(value: unknown, filePath: string): EmulatorState {
  const result = stateSchema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  const problems = result.error.issues.slice(0, 3).map(describeIssue);
  const more = result.error.issues.length > 3 ? ` (and ${result.error.issues.length - 3} more)` : "";
  throw new Error(`state file ${filePath}: ${problems.join("; ")}${more}`);
}

/** One zod issue in words: `` `domains[0].name` must be a string ``. */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.length === 0 ? "the file's content" : `\`${fieldPath(issue.path)}\``;
  switch (issue.code) {
    case "invalid_type": {
      const missing = issue.path.length > 0 && issue.input === undefined;
      return `${where} must be ${TYPE_WORDS[issue.expected] ?? issue.expected}${missing ? " (it is missing)" : ""}`;
    }
    case "invalid_value":
      return `${where} must be ${issue.values.length === 1 ? "" : "one of "}${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "unrecognized_keys":
      return `${where} has fields the emulator does not know: ${issue.keys.map((key) => `\`${key}\``).join(", ")}`;
    case "too_small":
      return `${where} must be at least ${String(issue.minimum)}`;
    default:
      return `${where} ${issue.message}`;
  }
}

const TYPE_WORDS: Record<string, string> = {
  object: "an object",
  array: "an array",
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  record: "an object",
};

function fieldPath(path: PropertyKey[]): string {
  return path
    .map((key, index) => (typeof key === "number" ? `[${key}]` : `${index === 0 ? "" : "."}${String(key)}`))
    .join("");
}
