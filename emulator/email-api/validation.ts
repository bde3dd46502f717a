import { ApiError, DatabaseError } from "./errors";
import { toSentence } from "./messages";

/**
 * Collects Rails-style validation failures ("Name" + "is invalid" → "Name is invalid") and, when
 * there are any, fails the action with `ValidationError`: `message` is the full messages as one
 * sentence (as Postal forks render `errors.full_messages.to_sentence`), `errors` the list.
 */
export class Validation {
  private readonly messages: string[] = [];

  add(attribute: string, message: string): void {
    this.messages.push(`${attribute} ${message}`);
  }

  get failed(): boolean {
    return this.messages.length > 0;
  }

  throwIfFailed(): void {
    if (this.failed) {
      throw new ApiError("ValidationError", {
        message: toSentence(this.messages),
        errors: [...this.messages],
      });
    }
  }
}

/** Postal's string columns are `varchar(255)`. */
const COLUMN_LIMIT = 255;

/** What MySQL strict mode does with a longer value: the INSERT fails and Rails answers 500. */
export function assertFitsColumn(column: string, value: string): void {
  if (value.length > COLUMN_LIMIT) throw new DatabaseError(`Data too long for column '${column}'`);
}

export const sameText = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
