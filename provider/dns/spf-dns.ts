/**
 * The DNS an SPF check asks, injected: node:dns in the package (`spf-lookups.ts`), a table or a
 * test's DNS server in tests. Answers are read as RFC 7208 reads them: records, a void answer
 * (§4.6.4: NXDOMAIN, or NOERROR with no records), or a failure (temperror, §2.6.6, §4.4).
 */

/** The queries SPF evaluation makes, each answering as node:dns does (errors carry its `code`). */
export interface SpfResolver {
  /** TXT records, each as its character-strings (`dns.resolveTxt`). */
  txt(name: string): Promise<string[][]>;
  /** IPv4 addresses (`dns.resolve4`). */
  a(name: string): Promise<string[]>;
  /** IPv6 addresses (`dns.resolve6`). */
  aaaa(name: string): Promise<string[]>;
  /** MX records (`dns.resolveMx`). */
  mx(name: string): Promise<{ exchange: string; priority: number }[]>;
}

export type SpfQueryType = keyof SpfResolver;

/** One answer: records, void (§4.6.4), or a failure that makes the evaluation a temperror. */
export type SpfAnswer<T> =
  { records: T[] } | { void: "no such name (NXDOMAIN)" | "no records" } | { failure: string };

type Records = { txt: string[][]; a: string[]; aaaa: string[]; mx: { exchange: string; priority: number }[] };

/**
 * A resolver that asks each name and type once per check, however often evaluation reaches it
 * (receivers count every term that queries, §4.6.4, whether or not their resolver caches). Names
 * are compared without letter case or a final dot.
 */
export class CachedSpfResolver {
  private readonly answers: Map<string, Promise<SpfAnswer<unknown>>>;
  /** Queries sent, in order, as `TYPE name`. */
  readonly asked: string[];

  constructor(private readonly resolver: SpfResolver) {
    this.answers = new Map();
    this.asked = [];
  }

  query<K extends SpfQueryType>(type: K, name: string): Promise<SpfAnswer<Records[K][number]>> {
    const bare = name.toLowerCase().replace(/\.$/, "");
    const key = `${type.toUpperCase()} ${bare}`;
    let answer = this.answers.get(key);
    if (!answer) {
      this.asked.push(key);
      answer = Promise.resolve()
        .then(() => this.resolver[type](bare) as Promise<unknown[]>)
        .then(
          (records): SpfAnswer<unknown> => (records.length === 0 ? { void: "no records" } : { records }),
          (error: unknown): SpfAnswer<unknown> => readFailure(error),
        );
      this.answers.set(key, answer);
    }
    return answer as Promise<SpfAnswer<Records[K][number]>>;
  }
}

/** A node:dns error as RFC 7208 reads it: NXDOMAIN and NODATA are void answers, the rest temperror. */
function readFailure(error: unknown): SpfAnswer<never> {
  const code = (error as { code?: unknown } | undefined)?.code;
  switch (code) {
    case "ENOTFOUND":
      return { void: "no such name (NXDOMAIN)" };
    case "ENODATA":
      return { void: "no records" };
    case "ETIMEOUT":
      return { failure: "the DNS query timed out" };
    case "ESERVFAIL":
      return { failure: "the DNS server answered SERVFAIL" };
    case "EREFUSED":
      return { failure: "the DNS server refused the query" };
    default:
      return {
        failure: `the DNS query failed (${typeof code === "string" ? code : error instanceof Error ? error.message : String(error)})`,
      };
  }
}
