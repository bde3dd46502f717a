import {
  dkimKey,
  KEY_2048,
  KEY_512,
  MAIL,
  Posture,
  primary,
  row,
  spfAtNews,
  STAGING,
  strict,
  withDmarc,
  ZONE,
  zoneId,
} from "./policy-postures";

/**
 * The corpus' rows over records and other resources (tests/support/pack-corpus.ts holds the
 * rest, and says how a row reads): SPF, MX and DKIM records declared by hand, alignment, routes
 * and TTLs.
 */
export const RECORD_POSTURES: Posture[] = [
  // SPF records declared by hand: how they read, secret or not.
  row(
    "SPF with senders and -all",
    "production",
    spfAtNews(() => '"v=spf1 ip4:192.0.2.0/24 -all"'),
    "",
  ),
  row(
    "SPF +all",
    "production",
    spfAtNews(() => '"v=spf1 +all"'),
    "spf-record mandatory hand",
  ),
  row(
    "SPF +all, secret",
    "production",
    spfAtNews((w) => w.secret('"v=spf1 +all"')),
    "spf-record mandatory hand",
  ),
  row(
    "SPF ip4:0.0.0.0/0",
    "staging",
    spfAtNews(() => '"v=spf1 ip4:0.0.0.0/0 -all"'),
    `spf-record mandatory hand; ${STAGING}`,
  ),
  row(
    "SPF ip6:::/0",
    "production",
    spfAtNews(() => '"v=spf1 ip6:::/0 -all"'),
    "spf-record mandatory hand",
  ),
  row(
    "SPF two ip4 /1 halves",
    "production",
    spfAtNews(() => '"v=spf1 ip4:0.0.0.0/1 ip4:128.0.0.0/1 -all"'),
    "spf-record mandatory hand",
  ),
  row(
    "SPF over 10 lookups",
    "production",
    spfAtNews(
      () => `"v=spf1 ${Array.from({ length: 11 }, (_, i) => `include:s${i}.example.net`).join(" ")} -all"`,
    ),
    "spf-record mandatory hand",
  ),
  // One SPF record per name: relative names, zones, merging.
  row(
    "SPF at @ beside a Domain at the apex",
    "production",
    (w) => [w.domain("apex", "example.com"), w.txt("hand", "@", '"v=spf1 -all"')],
    "spf-single-record mandatory apex; spf-single-record mandatory hand",
  ),
  row(
    "SPF at mail beside Domains at example.com and mail.example.com",
    "production",
    (w) => [w.domain("apex", "example.com"), w.domain("mail", MAIL), w.txt("hand", "mail", '"v=spf1 -all"')],
    "spf-single-record mandatory mail; spf-single-record mandatory hand",
  ),
  row(
    "SPF at @, the zone not named by the stack",
    "production",
    (w) => [w.domain("mail", MAIL), w.txt("hand", "@", '"v=spf1 -all"')],
    "spf-single-record mandatory hand",
    { says: ['cannot tell which name "@" is'] },
  ),
  row(
    "SPF at @ in a cloudflare.Zone made in the run",
    "production",
    (w) => {
      const zone = w.zone("zone", "example.com");
      const record = w.txt("hand", "@", '"v=spf1 -all"', { dependsOn: [zone], zoneId: zoneId(w) });
      return [zone, w.domain("apex", "example.com", { cloudflare: { zoneId: zoneId(w) as string } }), record];
    },
    "spf-single-record mandatory apex; spf-single-record mandatory hand",
  ),
  row(
    "Domain merging into the hand SPF record",
    "production",
    (w) => {
      const hand = w.txt("hand", MAIL, '"v=spf1 include:_spf.google.com -all"');
      const merge = { cloudflare: { zoneId: ZONE, existingRecords: { spf: "merge" as const } } };
      return [hand, { ...primary(w, merge), dependencies: [w.urn(hand)] }];
    },
    "",
  ),
  // Content another resource computes: unknown in the preview.
  row(
    "hand TXT fed from an output, SPF in the end",
    "production",
    (w) => [primary(w), w.txt("fed", MAIL, w.later('"v=spf1 -all"'))],
    "spf-single-record mandatory primary; spf-single-record mandatory fed",
    { preview: "n/a spf-record fed; spf-single-record mandatory fed", previewSays: ["not known"] },
  ),
  row(
    "hand TXT fed from an output, a token in the end",
    "production",
    (w) => [primary(w), w.txt("fed", MAIL, w.later('"site-verification=abc"'))],
    "",
    { preview: "n/a spf-record fed; spf-single-record mandatory fed" },
  ),
  row(
    "hand TXT, a secret fed from an output",
    "staging",
    spfAtNews((w) => w.secret('"v=spf1 ?all"', true)),
    `spf-record mandatory hand; ${STAGING}`,
    { preview: `n/a spf-record hand; ${STAGING}` },
  ),
  // MX.
  row(
    "another provider's MX at @ beside a Domain at the apex",
    "production",
    (w) => [
      w.domain("apex", "example.com"),
      w.record("google-mx", "MX", "@", "smtp.google.com", { priority: 1 }),
    ],
    "mx-single-provider mandatory apex",
  ),
  row(
    "another provider's MX, existingRecords.mx add",
    "production",
    (w) => [
      primary(w, { cloudflare: { zoneId: ZONE, existingRecords: { mx: "add" } } }),
      w.record("google-mx", "MX", MAIL, "smtp.google.com", { priority: 1 }),
    ],
    "",
  ),
  // DKIM records declared by hand.
  row(
    "DKIM 2048-bit key",
    "production",
    dkimKey(() => `"v=DKIM1; p=${KEY_2048}"`),
    "",
  ),
  row(
    "DKIM revoked",
    "production",
    dkimKey(() => '"v=DKIM1; p="'),
    "dkim-key mandatory key",
  ),
  row(
    "DKIM t=y",
    "staging",
    dkimKey(() => `"v=DKIM1; t=y; p=${KEY_2048}"`),
    `dkim-key advisory key; ${STAGING}`,
  ),
  row(
    "DKIM 512-bit, secret",
    "production",
    dkimKey((w) => w.secret(`"v=DKIM1; p=${KEY_512}"`)),
    "dkim-key mandatory key",
  ),
  row(
    "DKIM fed from an output, revoked in the end",
    "production",
    dkimKey((w) => w.later('"v=DKIM1; p="')),
    "dkim-key mandatory key",
    {
      preview: "n/a dkim-key key; n/a spf-record key",
    },
  ),
  // Alignment.
  row(
    "strict SPF alignment, DKIM not verified",
    "production",
    withDmarc(strict, { checks: ["spf", "mx"] }),
    "dmarc-alignment mandatory primary",
  ),
  row(
    "strict SPF alignment, DKIM not verified",
    "staging",
    withDmarc(strict, { checks: ["spf", "mx"] }),
    `dmarc-alignment advisory primary; ${STAGING}`,
  ),
  row(
    "strict SPF alignment, verification off",
    "production",
    withDmarc(strict, false),
    "dmarc-alignment mandatory primary; verification advisory primary",
  ),
  row(
    "strict SPF alignment, DKIM verified",
    "production",
    withDmarc(strict, { checks: ["dkim", "spf"] }),
    "",
  ),
  // Routes and TTLs.
  row(
    "route to Hold",
    "production",
    (w) => [w.route("catch-all", "*", "Hold")],
    "route-mode advisory catch-all",
  ),
  row("route to Hold", "staging", (w) => [w.route("catch-all", "*", "Hold")], "n/a route-mode catch-all"),
  row(
    "hand SPF record with a 60s TTL",
    "production",
    (w) => [primary(w), w.txt("hand", "news.example.com", '"v=spf1 -all"', { ttl: 60 })],
    "dns-ttl advisory hand",
  ),
];
