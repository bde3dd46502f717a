import { DEFAULT_TIMEOUT_SECONDS } from "../inputs/verification-inputs";
import { resourceRule } from "./policy-kit";
import { knownNumber, UNKNOWN } from "./props";
import { domainFacts, domainLabel, TYPE_TOKENS } from "./resources";
import { currentStack, DEFAULT_PRODUCTION_STACKS, notProduction, productionStacksSchema } from "./stage";

/**
 * In production `pulumi up` waits until the service has checked a domain's records: a `Domain`
 * does not turn its verification off, and no verification gives up sooner than a floor (DNS that
 * takes longer would fail the update that a longer wait would have finished).
 */
export const verificationRequired = resourceRule<{ productionStacks: string[]; minTimeoutSeconds: number }>({
  name: "email-verification",
  description: "In production, a Domain waits for verification, for at least minTimeoutSeconds.",
  enforcementLevel: "advisory",
  appliesTo: [TYPE_TOKENS.Domain, TYPE_TOKENS.DomainVerification],
  config: {
    productionStacks: productionStacksSchema(DEFAULT_PRODUCTION_STACKS),
    minTimeoutSeconds: {
      type: "integer",
      minimum: 1,
      default: 300,
      description: "The shortest timeoutSeconds allowed in production.",
    },
  },
  validate(subject, report) {
    const skip = notProduction(subject.config.productionStacks);
    if (skip) subject.notApplicable(skip);
    const stack = `production stack "${currentStack()}"`;
    if (subject.type === TYPE_TOKENS.Domain) {
      const domain = domainFacts(subject.name, subject.props);
      if (domain?.verification !== false) return;
      report(
        `${domainLabel(domain)} turns verification off (verification: false) in ${stack}: \`pulumi up\` finishes ` +
          "before the service has found its records, and routes on it fail until it has. Remove verification: false.",
      );
      return;
    }
    if (subject.props.timeoutSeconds === UNKNOWN)
      subject.notApplicable("timeoutSeconds is not known until `pulumi up`");
    const timeout = knownNumber(subject.props.timeoutSeconds) ?? DEFAULT_TIMEOUT_SECONDS;
    const floor = subject.config.minTimeoutSeconds;
    if (timeout >= floor) return;
    report(
      `DomainVerification "${subject.name}" gives up after ${timeout}s (timeoutSeconds) in ${stack}, under the ` +
        `floor of ${floor}s: DNS that takes longer fails the update. Set verification.timeoutSeconds to ${floor} or more.`,
    );
  },
});
