import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseEnv } from "node:util";
import { startEmulator } from "../../emulator";

/**
 * `envLines()` (what the emulator command prints) is pasted into an env file or `export`ed line by
 * line: each value must read back as itself in both, whatever key the user chose, and no two
 * lines may set one variable to different values.
 */

async function sourcedBySh(lines: string[], name: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "env-lines-"));
  try {
    const file = path.join(dir, "emulator.env");
    await fs.writeFile(file, `${lines.join("\n")}\n`);
    return await new Promise((resolve, reject) =>
      execFile("/bin/sh", ["-c", `set -a; . "$1"; printf %s "$${name}"`, "sh", file], (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

it("a key with a space, a # or a quote reads back as itself from an env file and from sh", async () => {
  const emulator = await startEmulator({ apiKey: "my key#1", masterKey: "it's #2" });
  try {
    const lines = emulator.envLines();
    const env = parseEnv(lines.join("\n"));
    expect(env.EMAIL_DELIVERY_API_KEY).toBe("my key#1");
    expect(env.EMAIL_DELIVERY_MASTER_KEY).toBe("it's #2");
    expect(await sourcedBySh(lines, "EMAIL_DELIVERY_API_KEY")).toBe("my key#1");
    expect(await sourcedBySh(lines, "EMAIL_DELIVERY_MASTER_KEY")).toBe("it's #2");
  } finally {
    await emulator.stop();
  }
});

it("refuses a key no quoting writes for both (a ' beside a $), naming it, before any port opens", async () => {
  await expect(startEmulator({ masterKey: "it's $HOME" })).rejects.toThrow(/^masterKey: /);
});

it("refuses a resolver that is no DNS server's address (port 99999 too), before any port opens", async () => {
  await expect(startEmulator({ resolver: "127.0.0.1:99999" })).rejects.toThrow(
    /^resolver: must be the IP address of a DNS server/,
  );
});

it("refuses zones whose variables would be one (a-b.com, a.b.com), naming both and the variable", async () => {
  const started = startEmulator({ zones: ["a-b.com", "a.b.com"] });
  try {
    await expect(started).rejects.toThrow(/a-b\.com.*a\.b\.com.*CLOUDFLARE_ZONE_ID_A_B_COM/);
  } finally {
    await started.then((emulator) => emulator.stop()).catch(() => undefined);
  }
});

it("a zone given twice (in any case, with a final dot) is one zone, printed once", async () => {
  const emulator = await startEmulator({ zones: ["example.com", "Example.com."] });
  try {
    expect(emulator.cloudflare.zones).toHaveLength(1);
    expect(emulator.envLines().filter((line) => line.startsWith("CLOUDFLARE_ZONE_ID_"))).toEqual([
      `CLOUDFLARE_ZONE_ID_EXAMPLE_COM=${emulator.cloudflare.zones[0].id}`,
    ]);
  } finally {
    await emulator.stop();
  }
});
