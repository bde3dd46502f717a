import type { PolicyConfigEntry } from "./policy-pack-host";
import { RECORD_POSTURES } from "./pack-corpus-records";
import {
  dmarcRecord,
  DMARC_OK,
  MAIL,
  noDmarc,
  OWN,
  OWN_PREVIEW,
  pNone,
  Posture,
  primary,
  row,
  STAGING,
  withDmarc,
} from "./policy-postures";

/**
 * The corpus of postures tests/policy/pack-corpus.test.ts drives the ready pack over, as one
 * table. Each row: a name, the pack it runs in (a stack, or a stack with a policy config), the
 * resources (built for a preview or an update by a {@link World}), and the exact answers expected:
 * `<rule> <level> <resource>` for a violation, `n/a <rule> <resource>` for "not applicable" (rule
 * names without `email-`), in both modes unless the row gives the preview's apart. `says`: words
 * some answer must contain (in every mode; `previewSays` in the preview only).
 */

/** The pack processes: one per stack, and one configured as `--policy-pack-config` configures it. */
export const STACKS: Record<string, { stack: string; config?: Record<string, PolicyConfigEntry> }> = {
  production: { stack: "production" },
  Production: { stack: "Production" },
  staging: { stack: "staging" },
  // policy.staging.json: { "email-dmarc-published": "mandatory",
  //   "email-dmarc-enforced": { "enforcementLevel": "mandatory", "productionStacks": ["stag*"] } }
  "staging+config": {
    stack: "staging",
    config: {
      "email-dmarc-published": { level: "mandatory" },
      "email-dmarc-enforced": { level: "mandatory", properties: { productionStacks: ["stag*"] } },
    },
  },
};

export const CORPUS: Posture[] = [
  // A Domain with what it registers under it (parents): its own records are judged through it.
  row("clean domain with its children", "production", (w) => w.domainWithChildren("primary", MAIL), OWN, {
    preview: OWN_PREVIEW,
  }),
  row(
    "clean domain with its children",
    "staging",
    (w) => w.domainWithChildren("primary", MAIL),
    `${STAGING}; n/a verification primary-verification; ${OWN}`,
    { preview: `${STAGING}; n/a verification primary-verification; ${OWN_PREVIEW}` },
  ),
  row(
    "hand SPF record parented to the Domain, at its name",
    "production",
    (w) => {
      const all = w.domainWithChildren("primary", MAIL);
      return [...all, w.txt("primary-extra", MAIL, '"v=spf1 -all"', { parent: all[0] })];
    },
    `${OWN}; spf-single-record mandatory primary; spf-single-record mandatory primary-extra`,
    {
      preview: `${OWN_PREVIEW}; spf-single-record mandatory primary; spf-single-record mandatory primary-extra`,
    },
  ),
  // DMARC: published, enforced, subdomains, reports; production defaults and stack names.
  row("no DMARC", "production", (w) => [noDmarc(w)], "dmarc-published mandatory primary"),
  row("no DMARC", "Production", (w) => [noDmarc(w)], "dmarc-published mandatory primary"),
  row(
    "no DMARC",
    "staging",
    (w) => [noDmarc(w)],
    "dmarc-published advisory primary; n/a verification primary",
  ),
  row(
    "no DMARC",
    "staging+config",
    (w) => [noDmarc(w)],
    "dmarc-published mandatory primary; n/a verification primary",
  ),
  row(
    "p=none without sp",
    "Production",
    withDmarc(pNone),
    "dmarc-enforced mandatory primary; dmarc-subdomain-policy advisory primary",
    { says: ['production stack "Production"'] },
  ),
  row(
    "p=none without sp",
    "staging",
    withDmarc(pNone),
    `dmarc-subdomain-policy advisory primary; ${STAGING}`,
  ),
  row(
    "p=none; sp=none",
    "staging+config",
    withDmarc({ ...pNone, subdomainPolicy: "none" }),
    "dmarc-enforced mandatory primary; n/a verification primary",
  ),
  row(
    "p=quarantine; pct=0 (settings)",
    "production",
    withDmarc({ ...DMARC_OK, policy: "quarantine", subdomainPolicy: undefined, percent: 0 }),
    "dmarc-enforced mandatory primary",
    { says: ["pct=0"] },
  ),
  row(
    "p=quarantine; pct=0 (hand record)",
    "production",
    dmarcRecord(MAIL, "_dmarc.mail.example.com", '"v=DMARC1; p=quarantine; pct=0; rua=mailto:d@example.com"'),
    "dmarc-enforced mandatory dmarc",
  ),
  row(
    "DMARC at a parent that is not the organizational domain",
    "production",
    dmarcRecord(
      "mail.eu.example.com",
      "_dmarc.eu.example.com",
      '"v=DMARC1; p=reject; rua=mailto:d@example.com"',
    ),
    "dmarc-published mandatory primary",
  ),
  row(
    "DMARC at the organizational domain",
    "production",
    dmarcRecord(
      "mail.eu.example.com",
      "_dmarc.example.com",
      '"v=DMARC1; p=reject; rua=mailto:d@example.com"',
    ),
    "",
  ),
  row(
    "two DMARC policies at one name",
    "production",
    (w) => [
      primary(w),
      w.txt("dmarc", "_dmarc.mail.example.com", '"v=DMARC1; p=reject; rua=mailto:d@example.com"'),
    ],
    "dmarc-published mandatory primary; dmarc-published mandatory dmarc",
  ),
  row(
    "hand DMARC record, rua not mailto:",
    "production",
    dmarcRecord(
      MAIL,
      "_dmarc.mail.example.com",
      '"v=DMARC1; p=reject; rua=https://reports.example.com/dmarc"',
    ),
    "dmarc-aggregate-reports advisory dmarc",
    { says: ["mailto:"] },
  ),
  row(
    "DMARC without rua",
    "production",
    withDmarc({ policy: "reject" }),
    "dmarc-aggregate-reports advisory primary",
  ),
  ...RECORD_POSTURES,
];
