import { useEmulator } from "../support/emulator";
import { destroyRun, refreshRun, runProgram } from "../../testing";
import { Domain, Route } from "../../provider";

/**
 * The kit's `refreshRun`: every resource in state read as `pulumi refresh` reads it, what changed
 * outside Pulumi returned, and what it costs in the emulator's request log.
 */

const emulator = useEmulator();
const RECORD = "pulumi-nodejs:dynamic/email-delivery:ClaimedDnsRecord";

function program(name: string) {
  return () => {
    const domain = new Domain("mail", {
      name,
      cloudflare: { zoneId: emulator().cloudflare.zones[0].id },
      verification: false,
    });
    new Route("support", { name: "support", domainId: domain.domainId, endpointId: 1 });
    return { domainId: domain.domainId };
  };
}

it("reads every resource once, finds nothing changed after an up, and drift after hand edits", async () => {
  const name = `refresh-${process.pid}.example.com`;
  const live = { mode: "live" as const, emulator: emulator() };
  const up = await runProgram(program(name), live);
  expect(up.errors).toEqual([]);
  const records = up.registrations.filter((r) => r.type === RECORD);
  expect(records.map((r) => r.name).sort()).toEqual([
    "mail-dkim",
    "mail-mx-0",
    "mail-mx-1",
    "mail-return-path",
    "mail-spf",
  ]);

  const before = emulator().requests.all().length;
  const clean = await refreshRun(up, live);
  const sent = emulator().requests.all().slice(before);
  expect(clean.errors).toEqual([]);
  expect(clean.changed).toEqual([]);
  expect(clean.deleted).toEqual([]);
  expect(clean.read).toHaveLength(records.length + 2); // the records, the service domain, the route
  // What a refresh costs: one read of the zone, which every record's read shares (none by id),
  // and one list per kind on the email service, which every read of that kind shares.
  expect(sent.filter((entry) => entry.service === "cloudflare").map((entry) => entry.endpoint)).toEqual([
    "cloudflare:dns_records.list",
  ]);
  expect(
    sent
      .filter((entry) => entry.service === "email-api")
      .map((entry) => entry.endpoint)
      .sort(),
  ).toEqual(["domains/list", "routes/list"]);

  // Someone edits the SPF record and deletes the DKIM record by hand.
  const { url, apiToken, zones } = emulator().cloudflare;
  const spf = records.find((r) => r.name === "mail-spf")!;
  const dkim = records.find((r) => r.name === "mail-dkim")!;
  const edited = await fetch(`${url}/zones/${zones[0].id}/dns_records/${spf.id}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${apiToken}`, "content-type": "application/json" },
    body: JSON.stringify({
      type: "TXT",
      name,
      content: '"v=spf1 -all"',
      ttl: 300,
      comment: spf.state?.comment,
    }),
  });
  expect(edited.status).toBe(200);
  await emulator().cloudflare.removeRecord(zones[0].id, dkim.id!);

  const drift = await refreshRun(up, live);
  expect(drift.errors).toEqual([]);
  expect(drift.deleted).toEqual([`${RECORD}::mail-dkim`]);
  expect(drift.changed.map((change) => change.subject)).toEqual([`${RECORD}::mail-spf`]);
  expect(drift.changed[0].properties.find((property) => property.name === "publishedContent")).toEqual({
    name: "publishedContent",
    before: spf.state?.publishedContent,
    after: '"v=spf1 -all"',
  });
  // The refreshed run holds the state as read: the deleted record is gone, the edit taken.
  const refreshed = drift.run.registrations.filter((r) => r.type === RECORD);
  expect(refreshed.map((r) => r.name).sort()).toEqual([
    "mail-mx-0",
    "mail-mx-1",
    "mail-return-path",
    "mail-spf",
  ]);
  expect(refreshed.find((r) => r.name === "mail-spf")!.state?.publishedContent).toBe('"v=spf1 -all"');

  // A destroy after the refresh deletes what is left, nothing it no longer holds.
  const destroyed = await destroyRun(drift.run, live);
  expect(destroyed.errors).toEqual([]);
  expect(destroyed.deleted).not.toContain(`${RECORD}::mail-dkim`);
  // Deleted `parallel` at a time, each once its dependents are gone: the records and the route
  // before the service's domain they were made from.
  const at = (subject: string) =>
    destroyed.deleted.indexOf(`pulumi-nodejs:dynamic/email-delivery:${subject}`);
  const dependents = ["mail-spf", "mail-return-path", "mail-mx-0", "mail-mx-1"]
    .map((r) => at(`ClaimedDnsRecord::${r}`))
    .concat(at("Route::support"));
  expect(at("Domain::mail")).toBe(destroyed.deleted.length - 1);
  expect(dependents.every((index) => index >= 0)).toBe(true);
  expect(
    emulator()
      .cloudflare.records(zones[0].id)
      .filter((r) => r.name.endsWith(name)),
  ).toEqual([]);
  expect(
    emulator()
      .emailApi.domains()
      .filter((d) => d.name === name),
  ).toEqual([]);
});
