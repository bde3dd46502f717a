import { promises as fs } from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { Emulator, startEmulator } from "../../emulator";
import { EmulatorState, emptyState } from "../../emulator/store/state";
import { clientFor } from "../support/emulator";
import { startEmulatorProcess } from "../support/emulator-process";

/** The `--state FILE` option: what a bad file does to a start. */

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
