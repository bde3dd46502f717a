import { clientFor, uniqueDomain, useEmulator } from "../support/emulator";

/**
 * Writes through any client of the process reach the shared lists (write-through, list-patches.ts):
 * a list reused after a write shows it without being asked for again, and a write whose outcome is
 * unknown makes the lists forgotten. Counted from the emulator's request log.
 */
describe("the process's lists after a write", () => {
  const emulator = useEmulator();
  const reuse = { maxAgeMs: 60_000 };
  const lists = () => emulator().requests.count("domains/list") + emulator().requests.count("routes/list");

  it("show a domain's create, check, routes and delete without listing again", async () => {
    const client = clientFor(emulator());
    // Another client of the same service and key: the lists are the process's.
    const reader = clientFor(emulator());
    const endpointId = emulator().state.endpoints[0].id;
    // The lists exist before any write (a create lists nothing itself).
    await reader.listDomains(reuse);
    await reader.listRoutes(reuse);
    emulator().requests.clear();

    const { domain } = await client.createDomain(uniqueDomain("through"));
    expect((await reader.listDomains(reuse)).find((d) => d.id === domain.id)).toMatchObject({
      name: domain.name,
      spfStatus: null,
    });
    const check = await client.checkDomain(domain.id);
    expect((await reader.listDomains(reuse)).find((d) => d.id === domain.id)).toMatchObject({
      spfStatus: check.spfStatus,
      dkimStatus: check.dkimStatus,
      mxStatus: check.mxStatus,
      returnPathStatus: check.returnPathStatus,
    });
    expect(check.spfStatus).toBe("Missing");

    await client.createRoute({ name: "first", domainId: domain.id, endpointId });
    const { route } = await client.createRoute({ name: "second", domainId: domain.id, endpointId });
    const updated = await client.updateRoute({ id: route.id, mode: "Hold" });
    expect((await reader.listRoutes(reuse)).filter((r) => r.domainId === domain.id)).toEqual([
      expect.objectContaining({ name: "first" }),
      { ...updated, domainId: domain.id },
    ]);

    await client.deleteDomain(domain.id);
    expect((await reader.listDomains(reuse)).some((d) => d.id === domain.id)).toBe(false);
    // The service deletes a domain's routes with it.
    expect((await reader.listRoutes(reuse)).some((r) => r.domainId === domain.id)).toBe(false);
    expect(lists()).toBe(0);
    expect(emulator().requests.count("domains/create")).toBe(1);
    expect(emulator().requests.count("routes/create")).toBe(2);
  });

  it("are asked for again after a write whose answer was lost, and show what it did", async () => {
    const client = clientFor(emulator());
    const { domain } = await client.createDomain(uniqueDomain("lost"));
    const endpointId = emulator().state.endpoints[0].id;
    const { route } = await client.createRoute({ name: "lost", domainId: domain.id, endpointId });
    await client.listRoutes(reuse);
    // The update is made, but every answer to it is lost: its outcome is unknown to the client.
    emulator().faults.set([{ endpoints: "routes/update", commitThenDropRate: 1 }]);
    try {
      await expect(client.updateRoute({ id: route.id, mode: "Reject" })).rejects.toMatchObject({
        kind: "transient",
      });
    } finally {
      emulator().faults.set([]);
    }
    emulator().requests.clear();
    const listed = (await client.listRoutes(reuse)).find((r) => r.id === route.id);
    expect(lists()).toBe(1);
    expect(listed?.mode).toBe("Reject");
  });
});
