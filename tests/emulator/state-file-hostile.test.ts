import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator } from "../../emulator";
import { emptyState } from "../../emulator/store/state";
import { StateFile } from "../../emulator/store/state-file";
import { clientFor } from "../support/emulator";
import { resolverAt } from "../support/dns-client";

/** `--state`: what is on disk when an answer or a DNS reply shows it, and files that pass the check. */

let dir: string;
let stateFile: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "emulator-state-hostile-"));
  stateFile = path.join(dir, "state.json");
});
afterEach(async () => {
  jest.restoreAllMocks();
  await fs.rm(dir, { recursive: true, force: true });
});

describe("what the emulator shows is on disk", () => {
  // Known gap, left: a change whose write fails stays in memory (answered 500, written with the
  // next write that succeeds), and the DNS server answers from memory meanwhile. Serving only
  // what is on disk would need a snapshot per write or a rollback; a disk that refuses writes is
  // outside what the emulator is for. `it.failing` reports when this starts to hold.
  it.failing(
    "its DNS server does not serve a record whose create could not be saved (answered 500)",
    async () => {
      const emulator = await startEmulator({ stateFile });
      const stderr = jest.spyOn(process.stderr, "write").mockImplementation(() => true);
      try {
        await fs.rm(dir, { recursive: true }); // every write fails from here
        const response = await fetch(
          `${emulator.cloudflare.url}/zones/${emulator.cloudflare.zones[0].id}/dns_records`,
          {
            method: "POST",
            headers: {
              Authorization: `Bearer ${emulator.cloudflare.apiToken}`,
              "Content-Type": "application/json",
            },
            body: JSON.stringify({
              type: "TXT",
              name: "unsaved.example.com",
              content: '"not on disk"',
              ttl: 300,
            }),
          },
        );
        expect(response.status).toBe(500);

        // A timeout would read as "not served" and fail this `it.failing` test: `resolverAt` waits.
        const served = await resolverAt(emulator.dns.address)
          .resolveTxt("unsaved.example.com")
          .then(
            (records) => records.map((chunks) => chunks.join("")),
            () => [],
          );
        // Today the record is served from memory: a kill now loses what DNS already showed.
        expect(served).toEqual([]);
      } finally {
        stderr.mockRestore();
        await fs.mkdir(dir, { recursive: true });
        await emulator.stop();
      }
    },
  );

  it("flushes the new file's data to disk before the rename makes it the state file", async () => {
    const events: string[] = [];
    const probe = await fs.open(path.join(dir, "probe"), "w");
    const handleProto = Object.getPrototypeOf(probe) as {
      sync: () => Promise<void>;
      datasync: () => Promise<void>;
    };
    await probe.close();
    const writeFile = fs.writeFile.bind(fs);
    jest.spyOn(fs, "writeFile").mockImplementation(((file: string, data: string, options?: unknown) => {
      const flush = typeof options === "object" && options !== null && (options as { flush?: boolean }).flush;
      events.push(flush ? "write+flush" : "write");
      return writeFile(file, data, options as never);
    }) as typeof fs.writeFile);
    for (const method of ["sync", "datasync"] as const) {
      const original = handleProto[method];
      jest.spyOn(handleProto, method).mockImplementation(function (this: unknown) {
        events.push("sync");
        return original.call(this);
      });
    }
    // (A FileHandle's sync/datasync, or writeFile's `flush` option, are the ways to flush here.)
    const rename = fs.rename.bind(fs);
    jest.spyOn(fs, "rename").mockImplementation(async (from, to) => {
      events.push(`rename`);
      return rename(from, to);
    });

    await new StateFile(stateFile).write(emptyState());
    const renameAt = events.indexOf("rename");
    expect(renameAt).toBeGreaterThan(0);
    // Without it, a power cut after the rename can leave an empty or partial state file.
    expect(events.slice(0, renameAt).some((event) => event === "sync" || event === "write+flush")).toBe(true);
  });
});

describe("a state file that passes the check", () => {
  it("without an API credential for its server: the emulator starts, and the key it prints works", async () => {
    const state = emptyState();
    state.servers.push({
      id: 1,
      uuid: "u-1",
      name: "Main",
      permalink: "main",
      mode: "Live",
      createdAt: "2026-01-01T00:00:00.000Z",
    });
    state.nextId.server = 2;
    await fs.writeFile(stateFile, JSON.stringify(state));

    const emulator = await startEmulator({ stateFile }).catch((error: Error) => error);
    // Refusing the file at start, naming the problem, would do too.
    if (emulator instanceof Error) {
      expect(emulator.message).toContain(stateFile);
      return;
    }
    try {
      const listed = await clientFor(emulator)
        .listDomains()
        .then(
          () => "listed",
          (error: Error) => error.message,
        );
      expect(listed).toBe("listed");
    } finally {
      await emulator.stop();
    }
  });
});

it("the state file (it holds the keys) is readable by its owner only, whatever the umask", async () => {
  const previous = process.umask(0o022);
  try {
    await new StateFile(stateFile).write(emptyState());
  } finally {
    process.umask(previous);
  }
  expect((await fs.stat(stateFile)).mode & 0o777).toBe(0o600);
});
