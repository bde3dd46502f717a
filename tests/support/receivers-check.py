"""Asks the receivers' Python reference libraries how they judge email messages, for
tests/support/receivers.ts: pyspf (Debian's python3-spf), dkimpy (python3-dkim) and authheaders
(python3-authheaders, whose DMARC evaluation runs over pyspf's and dkimpy's results). Also signs
messages with dkimpy, for tests that need a signed message.

Reads one JSON object on stdin:
  {"server": "127.0.0.1", "port": 5353, "timeout": 20,
   "messages": [{"id", "raw", "mailFrom", "helo", "clientIp"}],
   "identities": [{"id", "domain", "ip", "helo"}],
   "sign": [{"id", "raw", "domain", "selector", "privateKeyPem", "canonicalization",
             "headers"}]}
(every list optional) and writes one JSON object on stdout:
  {"messages": [{"id", "pyspf", "dkimpy", "authheaders"}], "identities": [{"id", "result",
   "explanation"}], "signed": [{"id", "raw"}]}
or {"unavailable": "<why>"} when a library cannot be imported.

Every query goes to `server`:`port` only:
- pyspf is made to use py3dns (the `DNS` module) rather than dnspython, as in pyspf-check.py, with
  py3dns' list of servers (read from /etc/resolv.conf on import) replaced;
- dkimpy and authheaders use dnspython's default resolver (`dns.resolver.query`), replaced by one
  that knows only `server`:`port` and never reads /etc/resolv.conf.
"""

import json
import logging
import sys

# pyspf prefers dnspython when it can import it: blocked while pyspf is imported, it falls back to
# py3dns for good (spf.DNSLookup is chosen once, at import); dnspython is then let back in for
# dkimpy and authheaders.
sys.modules["dns"] = None
try:
    import DNS
    import spf
except ImportError as error:  # pragma: no cover - reported to the test, which skips
    print(json.dumps({"unavailable": "cannot import pyspf with py3dns: %s" % error}))
    sys.exit(0)
del sys.modules["dns"]

try:
    import warnings

    # authheaders imports pkg_resources, which warns that it is deprecated.
    warnings.simplefilter("ignore")
    import dns.resolver
    import dkim
    import authheaders
    from authres import AuthenticationResultsHeader
except ImportError as error:  # pragma: no cover
    print(json.dumps({"unavailable": "cannot import dnspython, dkimpy or authheaders: %s" % error}))
    sys.exit(0)


def use_only(server, port, timeout):
    """Points py3dns (pyspf) and dnspython's default resolver (dkimpy, authheaders) at server:port."""
    DNS.defaults["server"] = [server]
    DNS.defaults["port"] = port
    DNS.defaults["server_rotate"] = 0
    resolver = dns.resolver.Resolver(configure=False)
    resolver.nameservers = [server]
    resolver.port = port
    resolver.timeout = timeout
    resolver.lifetime = timeout
    dns.resolver.default_resolver = resolver


class Collected(logging.Handler):
    """What dkimpy logs at warning level and above (why a signature does not verify)."""

    def __init__(self):
        logging.Handler.__init__(self, logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def pyspf_message(message, timeout):
    """pyspf on the envelope: MAIL FROM, HELO and client IP, as spf.check2 (and authheaders) do."""
    query = spf.query(
        i=message["clientIp"], s=message["mailFrom"], h=message["helo"], timeout=timeout, querytime=0
    )
    result, _code, explanation = query.check()
    return {"result": result, "explanation": explanation}


def pyspf_identity(identity, timeout):
    """pyspf on a domain's own record: MAIL FROM postmaster@<domain>."""
    query = spf.query(
        i=identity["ip"], s="postmaster@" + identity["domain"], h=identity["helo"], timeout=timeout, querytime=0
    )
    result, _code, explanation = query.check()
    return {"id": identity["id"], "result": result, "explanation": explanation}


def dkimpy_message(raw, timeout):
    """dkimpy on every DKIM-Signature: pass if one verifies, as RFC 6376 §6.1 lets a verifier say."""
    try:
        headers = dkim.DKIM(raw).headers
    except dkim.DKIMException as error:  # a header section dkimpy cannot parse
        return {"result": "fail", "reason": "%s: %s" % (type(error).__name__, error), "signatures": []}
    count = len([name for name, _value in headers if name.lower() == b"dkim-signature"])
    signatures = [dkimpy_signature(raw, index, timeout) for index in range(count)]
    if not signatures:
        return {"result": "none", "reason": "no DKIM-Signature", "signatures": []}
    passing = [entry for entry in signatures if entry["result"] == "pass"]
    if passing:
        reason = "d=%s s=%s verified" % (passing[0]["domain"], passing[0]["selector"])
        return {"result": "pass", "reason": reason, "signatures": signatures}
    result = "temperror" if any(entry["result"] == "temperror" for entry in signatures) else "fail"
    reason = "; ".join(entry["reason"] for entry in signatures)
    return {"result": result, "reason": reason, "signatures": signatures}


def dkimpy_signature(raw, index, timeout):
    """dkimpy's DKIM.verify on signature `index` (0 is the topmost), and why it fails."""
    collected = Collected()
    logger = logging.getLogger("receivers-check.dkim")
    logger.propagate = False
    logger.handlers = [collected]
    logger.setLevel(logging.WARNING)
    verifier = dkim.DKIM(raw, logger=logger, timeout=timeout)
    entry = {"domain": None, "selector": None, "result": "fail", "reason": ""}
    try:
        if verifier.verify(idx=index):
            entry["result"] = "pass"
        else:
            entry["reason"] = "; ".join(collected.messages) or "signature did not verify"
    except dkim.DKIMException as error:
        entry["reason"] = "%s: %s" % (type(error).__name__, error)
    if any("DnsTimeoutError" in text for text in collected.messages):
        entry["result"] = "temperror"
    fields = getattr(verifier, "signature_fields", None) or {}
    entry["domain"] = fields.get(b"d", b"").decode("ascii", "replace") or None
    entry["selector"] = fields.get(b"s", b"").decode("ascii", "replace") or None
    return entry


def authheaders_message(raw, message):
    """authheaders' own evaluation, as authenticate_message(spf=True, dkim=True, dmarc=True) runs it:
    pyspf's check2 on the envelope, dkimpy on the first signature, then its DMARC over both."""
    try:
        spf_result = authheaders.check_spf(message["clientIp"], message["mailFrom"], message["helo"])
        dkim_result = authheaders.check_dkim(raw)
        dmarc_result = authheaders.check_dmarc(raw, spf_result, dkim_result)
    except Exception as error:  # a DNS timeout, or a message it cannot parse
        return {"error": "%s: %s" % (type(error).__name__, error)}
    header = AuthenticationResultsHeader(authserv_id="receivers-check", results=[spf_result, dkim_result, dmarc_result])
    return {
        "spf": spf_result.result,
        "dkim": dkim_result.result,
        "dmarc": dmarc_result.result,
        "policy": getattr(dmarc_result, "policy", None) or None,
        "headerFrom": getattr(dmarc_result, "header_from", None) or None,
        "comment": dmarc_result.result_comment or None,
        "header": str(header),
    }


def judge(message, timeout):
    raw = message["raw"].encode("utf-8")
    return {
        "id": message["id"],
        "pyspf": pyspf_message(message, timeout),
        "dkimpy": dkimpy_message(raw, timeout),
        "authheaders": authheaders_message(raw, message),
    }


def sign(request):
    raw = request["raw"].encode("utf-8")
    header_canon, body_canon = request.get("canonicalization", "relaxed/relaxed").split("/")
    signer = dkim.DKIM(raw)
    headers = request.get("headers")
    signature = signer.sign(
        request["selector"].encode("ascii"),
        request["domain"].encode("ascii"),
        request["privateKeyPem"].encode("ascii"),
        canonicalize=(header_canon.encode("ascii"), body_canon.encode("ascii")),
        include_headers=[name.encode("ascii") for name in headers] if headers else None,
    )
    return {"id": request["id"], "raw": (signature + raw).decode("utf-8")}


def main():
    request = json.load(sys.stdin)
    if spf.DNSLookup is not spf.DNSLookup_pydns:
        print(json.dumps({"unavailable": "pyspf does not use py3dns here"}))
        return
    timeout = int(request.get("timeout", 20))
    use_only(request["server"], int(request["port"]), timeout)
    answer = {
        "signed": [sign(entry) for entry in request.get("sign", [])],
        "messages": [judge(message, timeout) for message in request.get("messages", [])],
        "identities": [pyspf_identity(identity, timeout) for identity in request.get("identities", [])],
    }
    print(json.dumps(answer))


main()
