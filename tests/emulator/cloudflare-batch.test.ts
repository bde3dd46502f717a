import { startEmulator, type Emulator } from "../../emulator";

/**
 * The stand-in's `POST zones/{zone}/dns_records/batch`: deletes, patches, puts and posts in that
 * order, all or nothing, one request whatever it holds.
 */

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ zones: ["example.com"] });
});
afterAll(() => emulator.stop());

const zoneId = () => emulator.cloudflare.zones[0].id;
type RecordJson = { id: string; name: string; content: string };
/** Cloudflare's envelope around a batch's answer. */
interface BatchAnswer {
  success: boolean;
  errors: { code: number; message: string }[];
  result: Record<"deletes" | "patches" | "puts" | "posts", RecordJson[]>;
}
async function batch(body: unknown): Promise<{ status: number; json: BatchAnswer }> {
  const answer = await fetch(`${emulator.cloudflare.url}/zones/${zoneId()}/dns_records/batch`, {
    method: "POST",
    headers: { authorization: `Bearer ${emulator.cloudflare.apiToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: answer.status, json: (await answer.json()) as BatchAnswer };
}
const txt = (name: string, content: string) => ({ type: "TXT", name, content: `"${content}"`, ttl: 300 });
const named = (prefix: string) =>
  emulator.cloudflare
    .records(zoneId())
    .filter((r) => r.name.startsWith(prefix))
    .map((r) => `${r.name} ${r.content}`)
    .sort();

it("applies deletes, patches, puts and posts in that order, in one request", async () => {
  const old = await emulator.cloudflare.addRecord(zoneId(), txt("b1-old.example.com", "old"));
  const kept = await emulator.cloudflare.addRecord(zoneId(), txt("b1-kept.example.com", "kept"));
  const whole = await emulator.cloudflare.addRecord(zoneId(), txt("b1-whole.example.com", "whole"));
  const before = emulator.requests.all().length;
  const { status, json } = await batch({
    deletes: [{ id: old.id }],
    patches: [{ id: kept.id, content: '"patched"' }],
    puts: [{ id: whole.id, ...txt("b1-whole.example.com", "put") }],
    posts: [txt("b1-new-1.example.com", "one"), txt("b1-new-2.example.com", "two")],
  });
  expect(status).toBe(200);
  expect(json.result.deletes.map((r) => r.id)).toEqual([old.id]);
  expect(json.result.patches[0]).toMatchObject({ id: kept.id, content: '"patched"' });
  expect(json.result.puts[0]).toMatchObject({ id: whole.id, content: '"put"' });
  expect(json.result.posts.map((r) => r.name)).toEqual(["b1-new-1.example.com", "b1-new-2.example.com"]);
  expect(named("b1-")).toEqual([
    'b1-kept.example.com "patched"',
    'b1-new-1.example.com "one"',
    'b1-new-2.example.com "two"',
    'b1-whole.example.com "put"',
  ]);
  expect(
    emulator.requests
      .all()
      .slice(before)
      .map((entry) => entry.endpoint),
  ).toEqual(["cloudflare:dns_records.batch"]);
});

it("applies nothing when one operation fails, and answers that operation's error", async () => {
  const gone = await emulator.cloudflare.addRecord(zoneId(), txt("b2-gone.example.com", "x"));
  const { status, json } = await batch({
    deletes: [{ id: gone.id }],
    posts: [txt("b2-new.example.com", "one"), { ...txt("b2-bad.example.com", "two"), ttl: 5 }],
  });
  expect(status).toBe(400);
  expect(json.success).toBe(false);
  // The delete and the first post are undone with the batch.
  expect(named("b2-")).toEqual(['b2-gone.example.com "x"']);
  expect((await batch({ deletes: [{ id: "0".repeat(32) }] })).status).toBe(404);
});

it("refuses a body of another shape, and more than 200 operations", async () => {
  expect((await batch([])).json.errors[0].code).toBe(9207);
  expect((await batch({ posts: {} })).json.errors[0].code).toBe(9207);
  expect((await batch({ deletes: [{}] })).json.errors[0].code).toBe(9207);
  const many = Array.from({ length: 201 }, (_, i) => txt(`b3-${i}.example.com`, "x"));
  const refused = await batch({ posts: many });
  expect(refused.status).toBe(400);
  expect(refused.json.errors[0]).toMatchObject({
    code: 1004,
    message: expect.stringContaining("at most 200"),
  });
  expect(named("b3-")).toEqual([]);
  expect((await batch({ posts: many.slice(0, 200) })).status).toBe(200);
  expect(named("b3-")).toHaveLength(200);
});
