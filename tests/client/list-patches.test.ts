import fc from "fast-check";
import {
  domainChecked,
  domainDeleted,
  ListPatch,
  putObject,
  removeObject,
  routeWritten,
} from "../../provider/client/list-patches";
import type { Domain, DomainCheck, Route } from "../../provider/client";

/** What writes that answered do to a list (list-patches.ts), on lists made up here: no service. */

const domain = (id: number, name = `d${id}.example.com`): Domain => ({
  id,
  uuid: `u-${id}`,
  name,
  spfStatus: null,
  dkimStatus: null,
  mxStatus: null,
  returnPathStatus: null,
  createdAt: null,
});
const route = (id: number, domainId: number | null, name = `r${id}`): Route => ({
  id,
  uuid: `ru-${id}`,
  name,
  domainId,
  endpointId: 1,
  mode: "Endpoint",
  spamMode: "Mark",
});
const check: DomainCheck = {
  spfStatus: "OK",
  spfError: null,
  dkimStatus: "Invalid",
  dkimError: "does not match",
  mxStatus: "OK",
  mxError: null,
  returnPathStatus: "Missing",
  returnPathError: "none",
};

describe("list patches", () => {
  it("a create's answer replaces the object of its id, or is added once", () => {
    const made: Domain = { ...domain(3), spfStatus: "OK" };
    expect(putObject(made)([domain(1), domain(3)])).toEqual([domain(1), made]);
    expect(putObject(made)([domain(1)])).toEqual([domain(1), made]);
  });

  it("a delete removes the object of its id and nothing else", () => {
    const list = [domain(1), domain(2)];
    expect(removeObject<Domain>(2)(list)).toEqual([domain(1)]);
    expect(removeObject<Domain>(5)(list)).toBe(list);
  });

  it("a domain's delete takes its routes, not the others, nor the return-path route", () => {
    const { domains, routes } = domainDeleted(2);
    expect(domains([domain(1), domain(2)])).toEqual([domain(1)]);
    expect(routes([route(1, 1), route(2, 2), route(3, null), route(4, 2)])).toEqual([
      route(1, 1),
      route(3, null),
    ]);
  });

  it("a check sets that domain's four statuses, leaving its other fields and other domains alone", () => {
    const list = [domain(1), domain(2, "named.example.com")];
    expect(domainChecked(2, check)(list)).toEqual([
      domain(1),
      {
        ...domain(2, "named.example.com"),
        spfStatus: "OK",
        dkimStatus: "Invalid",
        mxStatus: "OK",
        returnPathStatus: "Missing",
      },
    ]);
    // A domain the list does not hold is not made up from a check's answer.
    expect(domainChecked(9, check)(list)).toEqual(list);
  });

  it("a route written without a domain id keeps the one asked for, else the listed one", () => {
    const answered = { ...route(7, null), mode: "Hold" };
    expect(routeWritten(answered, 4)([])).toEqual([{ ...answered, domainId: 4 }]);
    expect(routeWritten(answered)([route(7, 5)])).toEqual([{ ...answered, domainId: 5 }]);
    expect(routeWritten(route(7, 6))([route(7, 5)])).toEqual([route(7, 6)]);
  });

  it("every patch is idempotent: a list read after the write comes out as it went in", () => {
    const ids = fc.integer({ min: 1, max: 6 });
    const domains = fc.uniqueArray(ids, { maxLength: 6 }).map((list) => list.map((id) => domain(id)));
    const routes = fc
      .uniqueArray(fc.tuple(ids, fc.option(ids, { nil: null })), { maxLength: 6, selector: ([id]) => id })
      .map((list) => list.map(([id, domainId]) => route(id, domainId)));
    const twice = <T>(patch: ListPatch<T>, list: readonly T[]) =>
      expect(patch(patch(list))).toEqual(patch(list));
    fc.assert(
      fc.property(domains, routes, ids, (ds, rs, id) => {
        twice(putObject({ ...domain(id), name: "new.example.com" }), ds);
        twice(removeObject<Domain>(id), ds);
        twice(domainChecked(id, check), ds);
        twice(domainDeleted(id).domains, ds);
        twice(domainDeleted(id).routes, rs);
        twice(routeWritten(route(id, null), 3), rs);
        twice(removeObject<Route>(id), rs);
      }),
    );
  });
});
