import { afterAll, beforeAll, expect, test } from "@jest/globals";
import { readFileSync } from "node:fs";
import { Domain, Route } from "../../provider";
import { destroyRun, Emulator, runProgram, RunOptions, startEmulator } from "../../testing";
import { documentBlock } from "../support/readme";

/**
 * The example of docs/testing.md "Seeding and inspecting the emulator", as a user writes it: only the kit's exports (`pulumi-email-delivery/testing`) and
 * the package's resources. The last test holds the document to this file's code.
 */

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.stop());

const OFFICE_SPF = '"v=spf1 include:_spf.google.com ~all"';

/** One Domain at mail.example.com, its SPF record under `spf`'s policy (default "fail"). */
const mailProgram = (spf?: "overwrite") => () => {
  const domain = new Domain("mail", {
    name: "mail.example.com",
    cloudflare: { zoneId: emulator.cloudflare.zones[0].id, existingRecords: spf && { spf } },
  });
  return { spf: domain.spfStatus };
};

test("a zone whose domain name already has the office's SPF record", async () => {
  const office = await emulator.cloudflare.addRecord("example.com", {
    type: "TXT",
    name: "mail",
    content: OFFICE_SPF,
    ttl: 3600,
    comment: "office mail",
  });
  const spfRecords = () =>
    emulator.cloudflare.records("example.com", { name: "mail.example.com", type: "TXT" });

  // The default policy: the preview fails, naming the record.
  const preview = await runProgram(mailProgram(), { mode: "preview", emulator });
  expect(preview.errors.map((e) => e.message).join("\n")).toContain(
    "the zone already has an SPF record at mail.example.com that this stack did not make",
  );

  // "overwrite": the record holds the service's SPF while the stack runs; destroy gives it back.
  const live: RunOptions = { mode: "live", emulator };
  const up = await runProgram(mailProgram("overwrite"), live);
  expect(up.errors).toEqual([]);
  expect(up.outputs.spf).toBe("OK");
  expect(spfRecords()).toEqual([
    expect.objectContaining({ id: office.id, content: '"v=spf1 a mx include:spf.postal.example.com ~all"' }),
  ]);

  await destroyRun(up, live);
  expect(spfRecords()).toEqual([
    expect.objectContaining({ id: office.id, content: OFFICE_SPF, ttl: 3600, comment: "office mail" }),
  ]);
  expect(emulator.emailApi.domains()).toEqual([]);
});

test("routes on a domain another stack made and verified", async () => {
  const news = await emulator.emailApi.addDomain("news.example.com", { verified: true });
  expect(news.spf_status).toBe("OK");

  const run = await runProgram(
    () => {
      const support = new Route("support", { name: "support", domainId: news.id, endpointId: 1 });
      return { routeId: support.routeId };
    },
    { mode: "live", emulator },
  );
  expect(run.errors).toEqual([]);
  expect(emulator.emailApi.routes()).toEqual([
    expect.objectContaining({ id: run.outputs.routeId, name: "support", domain_id: news.id }),
  ]);
});

test("docs/testing.md shows this example, imports from the package's entries", () => {
  const shown = documentBlock("docs/testing.md", "ts mail-seeding.test.ts");
  const here = readFileSync(__filename, "utf8");
  const example = (text: string) =>
    text.slice(text.indexOf("let emulator: Emulator;"), text.indexOf('\ntest("docs/'));
  expect(example(shown).trimEnd()).toBe(example(here).trimEnd());
  expect(shown).toContain('import { Domain, Route } from "pulumi-email-delivery";');
  expect(shown).toContain(
    'import { destroyRun, Emulator, runProgram, RunOptions, startEmulator } from "pulumi-email-delivery/testing";',
  );
});
