import { promises as fs } from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { Emulator, startEmulator } from "../../emulator";
import { EmulatorState, emptyState, MessageRecord } from "../../emulator/store/state";
import { clientFor } from "../support/emulator";
import { EmulatorProcess, startEmulatorProcess } from "../support/emulator-process";

/** The `--state FILE` option: what a bad file does to a start, and that every answered write is kept. */

let dir: string;
let stateFile: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "emulator-state-"));
  stateFile = path.join(dir, "state.json");
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function canListenOn(port: number): Promise<boolean> {
  const server = net.createServer();
  const listening = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => resolve(true));
  });
  if (listening) await new Promise((resolve) => server.close(resolve));
  return listening;
}

describe("a --state file the emulator cannot use", () => {
  const cases: { what: string; content: () => string; message: string }[] = [
    { what: "an empty file", content: () => "", message: " is empty" },
    {
      what: "cut-off JSON",
      content: () => '{"version": 1, "servers": [',
      message: " is not JSON: Unexpected end of JSON input",
    },
    {
      what: "a file missing a list",
      content: () => JSON.stringify({ ...emptyState(), domains: undefined }),
      message: ": `domains` must be an array (it is missing)",
    },
    {
      what: "a record of the wrong shape",
      content: () => {
        const state = emptyState();
        state.nextId.endpoint = 2;
        state.endpoints.push({ id: 1, uuid: "u", serverId: 1, name: "E", url: 7 as unknown as string });
        return JSON.stringify(state);
      },
      message: ": `endpoints[0].url` must be a string",
    },
    {
      what: "another version's file",
      content: () => JSON.stringify({ ...emptyState(), version: 2 }),
      message: ": `version` must be 1",
    },
    {
      what: "a counter that would hand out an id again",
      content: () => {
        const state = emptyState();
        state.endpoints.push({ id: 4, uuid: "u", serverId: 1, name: "E", url: "http://127.0.0.1:9/" });
        return JSON.stringify(state);
      },
      message: ": `nextId.endpoint` must be greater than every endpoint's id (the highest is 4)",
    },
    { what: "a JSON array", content: () => "[]", message: ": the file's content must be an object" },
  ];

  it.each(cases)(
    "$what: the start fails naming the file and the problem, opening and writing nothing",
    async (c) => {
      await fs.writeFile(stateFile, c.content());
      const ports = { emailApi: await freePort(), cloudflare: await freePort(), dns: await freePort() };
      const started = startEmulator({ stateFile, ports });
      await expect(started).rejects.toThrow(`state file ${stateFile}${c.message}`);
      await started.then((emulator) => emulator.stop()).catch(() => undefined);
      for (const port of Object.values(ports)) expect(await canListenOn(port)).toBe(true);
      expect(await fs.readFile(stateFile, "utf8")).toBe(c.content());
      expect(await fs.readdir(dir)).toEqual(["state.json"]);
    },
  );

  it("the CLI prints that message and exits non-zero, before its ready line", async () => {
    const content = JSON.stringify({ ...emptyState(), domains: { "1": "not a list" } });
    await fs.writeFile(stateFile, content);
    const started = await startEmulatorProcess(["--state", stateFile]);
    if (started.kind === "running") await started.emulator.kill();
    expect(started).toMatchObject({
      kind: "exited",
      code: 1,
      stderr: `emulator: state file ${stateFile}: \`domains\` must be an array\n`,
    });
    expect(await fs.readFile(stateFile, "utf8")).toBe(content);
  });

  it("never quotes the file's text in the message (it holds keys)", async () => {
    await fs.writeFile(stateFile, '{"credentials": [{"key": SecretApiKey00000000001}]}');
    await expect(startEmulator({ stateFile })).rejects.toThrow(
      new RegExp(`^state file ${stateFile} is not JSON: Unexpected token 'S'$`),
    );
    const state = emptyState();
    state.credentials.push({ serverId: 1, type: "API", name: "k", key: 12345678987654 as unknown as string });
    await fs.writeFile(stateFile, JSON.stringify(state));
    const refused = await startEmulator({ stateFile }).catch((error: Error) => error.message);
    expect(refused).toBe(`state file ${stateFile}: \`credentials[0].key\` must be a string`);
  });

  it("a state file in a folder that does not exist: the start fails naming it, opening no port", async () => {
    const missing = path.join(dir, "missing", "state.json");
    const port = await freePort();
    await expect(startEmulator({ stateFile: missing, ports: { emailApi: port } })).rejects.toThrow(
      `state file ${missing} cannot be written: ENOENT`,
    );
    expect(await canListenOn(port)).toBe(true);
  });
});

describe("a --state file the emulator wrote", () => {
  it("reloads with every kind of record it holds", async () => {
    const first = await startEmulator({ stateFile });
    const client = clientFor(first);
    const { domain } = await client.createDomain("every.example.com");
    await client.createRoute({ name: "kept", domainId: domain.id, endpointId: 1 });
    await client.sendMessage({
      from: "a@every.example.com",
      to: ["b@example.org"],
      plainBody: "hi",
      headers: { "X-Kept": "yes" },
      attachments: [{ name: "a.txt", contentType: "text/plain", data: "aGk=" }],
    });
    await client.createServer({ name: "Second", mode: "Live" });
    await createTxtRecord(first, "every.example.com");
    await client.checkDomain(domain.id);
    const before = JSON.parse(JSON.stringify(first.state)) as EmulatorState;
    await first.stop();

    const second = await startEmulator({ stateFile });
    try {
      expect(second.state).toEqual(before);
    } finally {
      await second.stop();
    }
  });
});

describe("a --state file of an emulator that kept less", () => {
  it("loads messages without their raw form and envelope, and makes the installation's DKIM key once", async () => {
    const older = JSON.parse(JSON.stringify(emptyState())) as Record<string, unknown>;
    older.messages = [
      {
        id: 1,
        token: "t1",
        messageId: "1@rp.example.com",
        serverId: 1,
        rcptTo: "b@example.org",
        from: "a@example.com",
        sender: null,
        to: ["b@example.org"],
        cc: [],
        bcc: [],
        replyTo: null,
        subject: null,
        tag: null,
        plainBody: "hi",
        htmlBody: null,
        headers: {},
        attachments: [],
        createdAt: new Date(0).toISOString(),
      },
    ];
    (older.nextId as Record<string, number>).message = 2;
    await fs.writeFile(stateFile, JSON.stringify(older));
    const first = await startEmulator({ stateFile });
    const key = first.state.signingKey;
    try {
      expect(first.state.messages[0]).toMatchObject({ raw: "", mailFrom: "", clientIp: "", helo: "" });
      expect(key?.privateKeyPem).toContain("PRIVATE KEY");
    } finally {
      await first.stop();
    }
    const second = await startEmulator({ stateFile });
    try {
      expect(second.state.signingKey).toEqual(key);
    } finally {
      await second.stop();
    }
  });
});

describe("--state and kill -9", () => {
  /** 5 MB of messages: writing the file takes longer than a kill takes to arrive after an answer. */
  function bulkyState(): EmulatorState {
    const state = emptyState();
    const message = (id: number): MessageRecord => ({
      id,
      token: `t${id}`,
      messageId: `${id}@rp.example.com`,
      serverId: 1,
      rcptTo: "b@example.org",
      from: "a@example.com",
      sender: null,
      to: ["b@example.org"],
      cc: [],
      bcc: [],
      replyTo: null,
      subject: `bulk ${id}`,
      tag: null,
      plainBody: "x".repeat(1000),
      htmlBody: null,
      headers: {},
      attachments: [],
      createdAt: new Date(0).toISOString(),
      raw: "",
      mailFrom: "",
      clientIp: "",
      helo: "",
    });
    state.messages = Array.from({ length: 5000 }, (_, i) => message(i + 1));
    state.nextId.message = 5001;
    return state;
  }

  it("keeps every write it answered, when killed right after each answer", async () => {
    await fs.writeFile(stateFile, JSON.stringify(bulkyState()));
    const saved = async () => JSON.parse(await fs.readFile(stateFile, "utf8")) as EmulatorState;

    const ids: { domain?: number; route?: number; record?: string } = {};
    const idOf = async (answer: Promise<unknown>) => ((await answer) as { id: number }).id;
    const writes: {
      what: string;
      send(env: Record<string, string>): Promise<void>;
      kept(state: EmulatorState): boolean;
    }[] = [
      {
        what: "domains/create",
        send: async (env) => {
          ids.domain = await idOf(emailApi(env, "domains/create", { name: "k9.example.com" }));
        },
        kept: (state) => state.domains.some((d) => d.name === "k9.example.com"),
      },
      {
        what: "routes/create",
        send: async (env) => {
          ids.route = await idOf(
            emailApi(env, "routes/create", { name: "k9", domain_id: ids.domain, endpoint_id: 1 }),
          );
        },
        kept: (state) => state.routes.some((r) => r.id === ids.route),
      },
      {
        what: "Cloudflare dns_records.create",
        send: async (env) => {
          ids.record = await cloudflareCreate(env, "k9.example.com");
        },
        kept: (state) => state.cloudflare.records.some((r) => r.id === ids.record),
      },
      {
        what: "routes/delete",
        send: async (env) => {
          await emailApi(env, "routes/delete", { id: ids.route });
        },
        kept: (state) => !state.routes.some((r) => r.id === ids.route),
      },
    ];
    for (const write of writes) {
      const emulator = await running(["--state", stateFile]);
      try {
        await write.send(emulator.env);
      } finally {
        await emulator.kill(); // at once: the answer has arrived, nothing else is awaited
      }
      expect({ write: write.what, kept: write.kept(await saved()) }).toEqual({
        write: write.what,
        kept: true,
      });
    }

    const after = await running(["--state", stateFile]);
    try {
      const domains = (await emailApi(after.env, "domains/list", {})) as { name: string }[];
      expect(domains.map((d) => d.name)).toEqual(["k9.example.com"]);
      expect(await emailApi(after.env, "routes/list", {})).toEqual([]);
      const records = await fetch(`${cloudflareRecords(after.env)}/${ids.record}`, {
        headers: { Authorization: `Bearer ${after.env.CLOUDFLARE_API_TOKEN}` },
      });
      expect(records.status).toBe(200);
    } finally {
      await after.stop();
    }
  });
});

describe("a state file that stops taking writes", () => {
  it("answers a write it could not save with a 500, and saves it once it can", async () => {
    const emulator = await startEmulator({ stateFile });
    const stderr = jest.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      await fs.rm(dir, { recursive: true });
      const env = {
        EMAIL_DELIVERY_BASE_URL: emulator.emailApi.url,
        EMAIL_DELIVERY_API_KEY: emulator.emailApi.apiKey,
      };
      const refused = await emailApiRaw(env, "domains/create", { name: "unsaved.example.com" });
      expect(refused.status).toBe(500);
      expect(stderr.mock.calls.map(([text]) => String(text)).join("")).toContain(
        `state file ${stateFile} cannot be written: ENOENT`,
      );

      await fs.mkdir(dir);
      // Even a read waits until the file holds what it shows.
      const listed = (await emailApi(env, "domains/list", {})) as { name: string }[];
      expect(listed.map((d) => d.name)).toEqual(["unsaved.example.com"]);
      const saved = JSON.parse(await fs.readFile(stateFile, "utf8")) as EmulatorState;
      expect(saved.domains.map((d) => d.name)).toEqual(["unsaved.example.com"]);
    } finally {
      stderr.mockRestore();
      await emulator.stop();
    }
  });
});

async function running(args: string[]): Promise<EmulatorProcess> {
  const started = await startEmulatorProcess(args);
  if (started.kind !== "running") throw new Error(`the emulator exited (${started.code}): ${started.stderr}`);
  return started.emulator;
}

async function emailApiRaw(env: Record<string, string>, action: string, params: object): Promise<Response> {
  return fetch(`${env.EMAIL_DELIVERY_BASE_URL}/api/v1/${action}`, {
    method: "POST",
    headers: { "X-Server-API-Key": env.EMAIL_DELIVERY_API_KEY, "Content-Type": "application/json" },
    body: JSON.stringify(params),
  });
}

/** An email API action's `data`; throws unless the answer is a success. */
async function emailApi(env: Record<string, string>, action: string, params: object): Promise<unknown> {
  const response = await emailApiRaw(env, action, params);
  const answer = (await response.json()) as { status: string; data: unknown };
  if (answer.status !== "success") throw new Error(`${action}: ${JSON.stringify(answer)}`);
  return answer.data;
}

const cloudflareRecords = (env: Record<string, string>) =>
  `${env.CLOUDFLARE_BASE_URL}/zones/${env.CLOUDFLARE_ZONE_ID_EXAMPLE_COM}/dns_records`;

/** Creates a TXT record through the Cloudflare stand-in; its id. */
async function cloudflareCreate(env: Record<string, string>, name: string): Promise<string> {
  const response = await fetch(cloudflareRecords(env), {
    method: "POST",
    headers: { Authorization: `Bearer ${env.CLOUDFLARE_API_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ type: "TXT", name, content: '"kept"', ttl: 300 }),
  });
  const answer = (await response.json()) as { success: boolean; result: { id: string } };
  if (!answer.success) throw new Error(`dns_records.create: ${JSON.stringify(answer)}`);
  return answer.result.id;
}

function createTxtRecord(emulator: Emulator, name: string): Promise<string> {
  return cloudflareCreate(
    {
      CLOUDFLARE_BASE_URL: emulator.cloudflare.url,
      CLOUDFLARE_ZONE_ID_EXAMPLE_COM: emulator.cloudflare.zones[0].id,
      CLOUDFLARE_API_TOKEN: emulator.cloudflare.apiToken,
    },
    name,
  );
}
