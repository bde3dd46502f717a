/**
 * DNS over TCP frames each message with a 2-byte big-endian length (RFC 1035 §4.2.2). Chunks
 * arrive split and joined arbitrarily; this collects them into whole messages.
 */
export class TcpFrameReader {
  private pending: Buffer = Buffer.alloc(0);

  /** Adds received bytes and returns every message now complete, in order. */
  push(chunk: Buffer): Buffer[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const messages: Buffer[] = [];
    while (this.pending.length >= 2) {
      const length = this.pending.readUInt16BE(0);
      if (this.pending.length < 2 + length) break;
      messages.push(this.pending.subarray(2, 2 + length));
      this.pending = this.pending.subarray(2 + length);
    }
    return messages;
  }
}

export function frameTcpMessage(message: Buffer): Buffer {
  const prefix = Buffer.alloc(2);
  prefix.writeUInt16BE(message.length);
  return Buffer.concat([prefix, message]);
}
