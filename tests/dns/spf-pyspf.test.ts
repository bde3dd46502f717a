import { CachedSpfResolver, evaluateSpf, SpfEvaluation, SpfFamily } from "../../provider/dns";
import { ALL_SETUPS, PYSPF_CLIENTS, PYSPF_HELO, SPF_CORPUS } from "../fixtures/spf-corpus";
import { pyspfHere, pyspfVerdict, runPyspf } from "../support/pyspf";
import { useCorpusDns } from "../support/spf-corpus-dns";

/**
 * The differential test: every setup of the SPF corpus evaluated by the package and by pyspf (the
 * reference implementation, Debian's python3-spf) against the same DNS (the emulator's server on
 * 127.0.0.1, nothing else), once for an IPv4 client and once for an IPv6 one, and the verdicts
 * compared: `ok`, `temperror`, or `permerror` with the rule it breaks. Where RFC 7208 and pyspf
 * differ, the package follows the RFC: those setups say what pyspf gives and why (`pyspf`), and
 * are listed here; each must still differ, so the list stays true. Skipped, saying why, where
 * pyspf is not installed.
 */

/** The setups where pyspf and RFC 7208 (the package) give different verdicts. */
const EXPECTED_DIFFERENCES = [
  "macro-l", // a sender-dependent macro: pyspf evaluates one message
  "mx-hosts-without-addresses", // void lookups: RFC counts terms, pyspf every empty answer
  "ptr-may-be-void", // ptr: pyspf's client has no reverse DNS; unknowable in advance
  "redirect-beside-all", // pyspf counts a redirect= that RFC 7208 §6.1 ignores beside all
  "uppercase-redirect", // pyspf reads only "redirect=" in lowercase
  "include-servfail", // py3dns hands SERVFAIL to pyspf as an empty answer
  "include-refused", // …and REFUSED
  "failure-then-voids", // pyspf stops at a DNS failure; the package looks past it
  "failure-then-limit", // …and finds the lookup limit passed
];

const pyspf = pyspfHere();
// CI that installs pyspf sets this, so a detection slip fails the run instead of skipping.
if (!pyspf.available && process.env.EMAIL_DELIVERY_PYSPF === "require")
  throw new Error(`EMAIL_DELIVERY_PYSPF=require, but ${pyspf.reason}`);
if (!pyspf.available) console.warn(`Differential SPF test skipped: ${pyspf.reason}.`);

const FAMILIES: SpfFamily[] = ["ipv4", "ipv6"];

function verdictOf(evaluation: SpfEvaluation): string {
  if (evaluation.error) return `permerror:${evaluation.error.kind}`;
  return evaluation.unresolved.some((entry) => entry.temperror) ? "temperror" : "ok";
}

/** Receivers follow a loop until the lookup limit: pyspf reports that limit (or its own loop check). */
const agrees = (ours: string, theirs: string) =>
  ours === theirs || (ours === "permerror:loop" && theirs === "permerror:lookup-limit");

(pyspf.available ? describe : describe.skip)(
  `SPF corpus against pyspf${pyspf.available ? "" : ` — skipped: ${pyspf.reason}`}`,
  () => {
    const dns = useCorpusDns();
    let theirs: Map<string, { result: string; explanation: string }>;

    beforeAll(async () => {
      if (!pyspf.available) return;
      const cases = ALL_SETUPS.flatMap((setup) =>
        FAMILIES.map((family) => ({
          id: `${setup.id} ${family}`,
          record: setup.record,
          domain: setup.domain,
          ip: PYSPF_CLIENTS[family],
          helo: PYSPF_HELO,
        })),
      );
      theirs = await runPyspf(pyspf.python, dns().proxy.port, cases);
    });

    it("lists every setup where pyspf differs, and only those", () => {
      expect(ALL_SETUPS.filter((setup) => setup.pyspf).map((setup) => setup.id)).toEqual(
        EXPECTED_DIFFERENCES,
      );
    });

    describe.each(Object.entries(SPF_CORPUS))("%s", (_name, setups) => {
      it.each(setups.map((setup) => [setup.id, setup] as const))("%s", async (_id, setup) => {
        const resolver = new CachedSpfResolver(dns().resolver);
        for (const family of FAMILIES) {
          const ours = verdictOf(await evaluateSpf(setup.record, resolver, { domain: setup.domain, family }));
          const result = theirs.get(`${setup.id} ${family}`)!;
          const pyspfSays = pyspfVerdict(result);
          const compared = { family, ours, pyspf: pyspfSays, explanation: result.explanation };
          if (setup.pyspf) {
            // A listed difference: pyspf gives what the setup says, and that is not the RFC's verdict.
            expect(compared).toEqual({ ...compared, pyspf: setup.pyspf[family] });
            expect(agrees(ours, pyspfSays)).toBe(false);
          } else {
            expect({ ...compared, agrees: agrees(ours, pyspfSays) }).toEqual({ ...compared, agrees: true });
          }
        }
      });
    });
  },
);
