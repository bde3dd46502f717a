import type { ReceiverFinding } from "../receivers/findings";
import type { ReceiversJudgement } from "../receivers/judge";
import { printable, wrap } from "./report-text";
import type { WaitOutcome } from "./report";

/**
 * Receivers' verdict for people: a line of verdicts, then each finding with the record, what
 * receivers do with it and what to change, within 80 columns. The wait's failure, its warning and
 * the doctor print the same lines.
 */

const LABELS: Record<ReceiverFinding["check"], string> = { spf: "SPF", dkim: "DKIM", dmarc: "DMARC" };

/** `SPF fail, DKIM pass, DMARC none`. */
export function receiversVerdictLine(judgement: ReceiversJudgement): string {
  return `SPF ${judgement.spf}, DKIM ${judgement.dkim}, DMARC ${judgement.dmarc}`;
}

/**
 * Each finding: `  SPF: TXT mail.example.com`, what receivers do, `to do: …`, within 80 columns.
 * What DNS served is anyone's text: its control and bidi characters are shown escaped, never sent
 * to a terminal or a CI log as they are.
 */
export function findingLines(findings: readonly ReceiverFinding[]): string[] {
  return findings.flatMap((finding) => [
    ...wrap(
      printable(
        `${LABELS[finding.check]}: ${finding.record}${finding.unknown ? " (not judged: DNS did not answer)" : ""}`,
      ),
      "  ",
    ),
    ...wrap(printable(finding.receivers), "    "),
    ...wrap(printable(`to do: ${finding.fix}`), "    "),
  ]);
}

/** How to let a stack that does not own the domain's posture go on. */
const WARN_HINT =
  'If this stack does not own the domain\'s posture, set verification.whenReceiversReject to "warn": ' +
  "`pulumi up` then passes and says this as a warning.";

/**
 * The error of a wait the service passed and receivers did not: they reject the mail (the findings
 * say why), or could not be judged before the timeout (DNS did not answer them: never a pass).
 */
export function receiversMessage(
  domain: string,
  outcome: Pick<WaitOutcome, "receivers" | "receiversAccepted" | "receiversError">,
): string {
  const { receivers } = outcome;
  const head =
    outcome.receiversAccepted === false
      ? `${domain} passed the service's checks, but receivers would not accept its mail`
      : `${domain} passed the service's checks, but receivers' judgement could not be made`;
  const lines = [
    ...wrap(`${head}${receivers ? ` (${receiversVerdictLine(receivers)})` : ""}:`, ""),
    ...(receivers ? findingLines(receivers.findings) : []),
    ...(outcome.receiversError ? wrap(printable(outcome.receiversError.message), "  ") : []),
    ...wrap(
      outcome.receiversAccepted === false
        ? `Change the records named above and run \`pulumi up\` again: the wait resumes. ${WARN_HINT}`
        : "Run `pulumi up` again once the domain's nameservers answer: the wait resumes.",
      "",
    ),
  ];
  return lines.join("\n");
}
