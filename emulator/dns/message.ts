import * as dnsPacket from "dns-packet";
import { Answer, DecodedPacket, Packet } from "dns-packet";
import { LookupResult, ZoneData, lookup } from "./lookup";

/**
 * One DNS message in, one out: decode the query, look it up, encode the answer and, over UDP,
 * truncate it (TC) when it does not fit, so the client retries over TCP as c-ares does.
 */

const RCODES = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
type RcodeName = keyof typeof RCODES;

/** Without EDNS0 a UDP answer must fit in 512 bytes (RFC 1035). */
const CLASSIC_UDP_LIMIT = 512;
/** What this server advertises in its own OPT record. */
const SERVER_UDP_PAYLOAD = 1232;
const HEADER_BYTES = 12;
const QR_BIT = 0x8000;

export type Transport = "udp" | "tcp";

/** The answer to one raw message, or undefined when it deserves none (a response, a runt). */
export function answerMessage(raw: Buffer, data: ZoneData, transport: Transport): Buffer | undefined {
  if (raw.length < HEADER_BYTES || (raw.readUInt16BE(2) & QR_BIT) !== 0) return undefined;
  let query: DecodedPacket;
  try {
    query = dnsPacket.decode(raw);
  } catch {
    return headerOnly(raw.readUInt16BE(0), "FORMERR");
  }
  const flags = query.flags ?? 0;
  const opcode = (flags >> 11) & 0xf;
  const questions = query.questions ?? [];
  if (opcode !== 0) return encodeResponse(query, "NOTIMP", emptyResult(), transport);
  if (questions.length !== 1) return encodeResponse(query, "FORMERR", emptyResult(), transport);

  const question = questions[0];
  let result: LookupResult;
  try {
    result = lookup(data, question.name, question.type);
  } catch {
    return encodeResponse(query, "SERVFAIL", emptyResult(), transport);
  }
  return encodeResponse(query, result.rcode, result, transport);
}

function emptyResult(): LookupResult {
  return { rcode: "NOERROR", authoritative: false, answers: [], authorities: [] };
}

function encodeResponse(
  query: DecodedPacket,
  rcode: RcodeName,
  result: LookupResult,
  transport: Transport,
): Buffer {
  const opt = (query.additionals ?? []).find((record) => record.type === "OPT");
  const limit =
    transport === "tcp"
      ? 65535
      : opt && "udpPayloadSize" in opt
        ? Math.max(CLASSIC_UDP_LIMIT, opt.udpPayloadSize)
        : CLASSIC_UDP_LIMIT;
  const response = (answers: Answer[], authorities: Answer[], truncated: boolean): Packet => ({
    type: "response",
    id: query.id,
    flags:
      (result.authoritative ? dnsPacket.AUTHORITATIVE_ANSWER : 0) |
      ((query.flags ?? 0) & dnsPacket.RECURSION_DESIRED) |
      (truncated ? dnsPacket.TRUNCATED_RESPONSE : 0) |
      RCODES[rcode],
    questions: query.questions,
    answers,
    authorities,
    // Answer EDNS0 with EDNS0 (RFC 6891 §7).
    additionals: opt
      ? [
          {
            type: "OPT",
            name: ".",
            udpPayloadSize: SERVER_UDP_PAYLOAD,
            extendedRcode: 0,
            ednsVersion: 0,
            flags: 0,
            flag_do: false,
            options: [],
          },
        ]
      : [],
  });

  let encoded: Buffer;
  try {
    encoded = dnsPacket.encode(response(result.answers, result.authorities, false));
  } catch {
    return headerOnly(query.id ?? 0, "SERVFAIL");
  }
  if (encoded.length <= limit) return encoded;
  // Too big for this datagram: the question alone with TC set sends the client to TCP.
  return dnsPacket.encode(response([], [], true));
}

/** A bare header with an rcode, for messages that could not even be decoded. */
function headerOnly(id: number, rcode: RcodeName): Buffer {
  return dnsPacket.encode({ type: "response", id, flags: RCODES[rcode] });
}
