import { GatherClock, Gathering, GatherWindow, gatherThen } from "../client/gathering";
import { isCloudflareApiError } from "./api-request";
import type { BatchResult, DnsRecordsApi } from "./dns-records";
import type { ZoneRecord, ZoneRecordBody } from "./zone-record";

/**
 * The creates and deletes of one provider process, gathered per zone into `dns_records/batch`
 * requests: Cloudflare counts a batch as one request of the 1,200 an account has per 5 minutes,
 * where one request a record makes a stack of 1,000 domains cost 5,000. The engine sends a
 * command's operations `--parallel` at a time, so the operations under way at once are gathered
 * (a short debounce), up to `maxOperations` a request.
 *
 * A batch is all or nothing: when Cloudflare refuses one for an operation in it (a 4xx answer),
 * each operation of that batch is sent alone, so only the one at fault fails and the others are
 * made, as they would be one by one. A batch that fails otherwise (no answer after its retries,
 * its lost answer leaving the zone half changed) fails every operation in it.
 */
export interface RecordBatchesOptions {
  /** How long operations are gathered. @default {@link BATCH_GATHER} */
  gather?: GatherWindow;
  /** Operations a request at most: Cloudflare's Free plan takes 200, paid plans 3,500. @default 200 */
  maxOperations?: number;
  /** @default Date.now and setTimeout */
  clock?: GatherClock;
}

/** Operations that arrive within 50 ms of one another, over a quarter of a second at most, go together. */
export const BATCH_GATHER: GatherWindow = { quietMs: 50, maxMs: 250 };

type Operation = { kind: "delete"; id: string } | { kind: "post"; body: ZoneRecordBody };
type Outcome = { record?: ZoneRecord; deleted?: boolean } | { error: unknown };

/** The operations of one zone waiting for their request. */
interface Pending {
  operations: Operation[];
  gathering: Gathering<Outcome[]>;
}

export class RecordBatches {
  private readonly pending = new Map<string, Pending>();
  private readonly gather: GatherWindow;
  private readonly maxOperations: number;
  private readonly clock: GatherClock;

  constructor(
    private readonly api: Pick<DnsRecordsApi, "batch" | "create" | "remove">,
    options: RecordBatchesOptions = {},
  ) {
    this.gather = options.gather ?? BATCH_GATHER;
    this.maxOperations = options.maxOperations ?? 200;
    if (!Number.isInteger(this.maxOperations) || this.maxOperations < 1)
      throw new Error(
        `RecordBatches: maxOperations must be a whole number of at least 1, not ${this.maxOperations}`,
      );
    this.clock = options.clock ?? { now: Date.now, setTimer: (callback, ms) => setTimeout(callback, ms) };
  }

  /** Creates the record, in the zone's next batch. */
  async create(zoneId: string, body: ZoneRecordBody): Promise<ZoneRecord> {
    const outcome = await this.enqueue(zoneId, { kind: "post", body });
    if ("error" in outcome) throw outcome.error;
    return outcome.record!;
  }

  /** Deletes the record, in the zone's next batch; false when it was already gone. */
  async remove(zoneId: string, id: string): Promise<boolean> {
    const outcome = await this.enqueue(zoneId, { kind: "delete", id });
    if ("error" in outcome) throw outcome.error;
    return outcome.deleted ?? true;
  }

  private async enqueue(zoneId: string, operation: Operation): Promise<Outcome> {
    const pending = this.pending.get(zoneId);
    if (pending && !pending.gathering.sent) {
      const index = pending.operations.push(operation) - 1;
      return (await pending.gathering.join())[index];
    }
    // The operation is in before the gathering starts: a window of zero sends at once.
    const operations: Operation[] = [operation];
    const gathering = gatherThen(this.clock, this.gather, undefined, () => {
      if (this.pending.get(zoneId)?.operations === operations) this.pending.delete(zoneId);
      return this.send(zoneId, operations);
    });
    if (!gathering.sent) this.pending.set(zoneId, { operations, gathering });
    return (await gathering.join())[0];
  }

  /** Every operation's outcome, in order: requests of at most `maxOperations`, one after another. */
  private async send(zoneId: string, operations: readonly Operation[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    for (let start = 0; start < operations.length; start += this.maxOperations) {
      outcomes.push(...(await this.sendBatch(zoneId, operations.slice(start, start + this.maxOperations))));
    }
    return outcomes;
  }

  private async sendBatch(zoneId: string, operations: readonly Operation[]): Promise<Outcome[]> {
    const deletes = operations.flatMap((operation) => (operation.kind === "delete" ? [operation.id] : []));
    const posts = operations.flatMap((operation) => (operation.kind === "post" ? [operation.body] : []));
    let result: BatchResult;
    try {
      result = await this.api.batch(zoneId, { deletes, posts });
    } catch (error) {
      // Refused for what one operation asks: each alone, so only that one fails.
      if (operations.length > 1 && isRefusal(error))
        return Promise.all(operations.map((o) => this.alone(zoneId, o)));
      return operations.map(() => ({ error }));
    }
    let posted = 0;
    return operations.map((operation) =>
      operation.kind === "delete" ? { deleted: true } : { record: result.posted[posted++] },
    );
  }

  private async alone(zoneId: string, operation: Operation): Promise<Outcome> {
    try {
      return operation.kind === "delete"
        ? { deleted: await this.api.remove(zoneId, operation.id) }
        : { record: await this.api.create(zoneId, operation.body) };
    } catch (error) {
      return { error };
    }
  }
}

/** Cloudflare's answer that it will not do what was asked (a 4xx but 429): nothing was done. */
function isRefusal(error: unknown): boolean {
  if (!isCloudflareApiError(error)) return false;
  const status = error.httpStatus;
  return status !== undefined && status >= 400 && status < 500 && status !== 429;
}
