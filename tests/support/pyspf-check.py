"""Evaluates SPF records with pyspf (Debian's python3-spf), the reference implementation, for the
differential test (tests/dns/spf-pyspf.test.ts).

Reads one JSON object on stdin:
  {"server": "127.0.0.1", "port": 5353, "timeout": 2,
   "cases": [{"id": "...", "record": "v=spf1 ...", "domain": "example.com",
              "ip": "192.0.2.1", "helo": "client.example.net"}]}
and writes one JSON object on stdout: {"results": [{"id", "result", "explanation"}]}, or
{"unavailable": "<why>"} when pyspf or py3dns cannot be imported.

Every query goes to `server`:`port` only: pyspf is made to use py3dns (the `DNS` module) rather
than dnspython, and py3dns' list of servers (read from /etc/resolv.conf on import) is replaced.
Each record is evaluated as receivers evaluate a MAIL FROM of postmaster@<domain> from <ip>
(`spf.query(...).check(spf=record)`, strict, as `spf.check2` does).
"""

import json
import sys

# pyspf prefers dnspython when it is installed; blocking it makes pyspf fall back to py3dns, the
# one library whose server and port can be set here.
sys.modules["dns"] = None

try:
    import DNS
    import spf
except ImportError as error:  # pragma: no cover - reported to the test, which skips
    print(json.dumps({"unavailable": "cannot import pyspf with py3dns: %s" % error}))
    sys.exit(0)


def main():
    request = json.load(sys.stdin)
    if spf.DNSLookup is not spf.DNSLookup_pydns:
        print(json.dumps({"unavailable": "pyspf does not use py3dns here"}))
        return
    DNS.defaults["server"] = [request["server"]]
    DNS.defaults["port"] = int(request["port"])
    DNS.defaults["server_rotate"] = 0
    results = []
    for case in request["cases"]:
        query = spf.query(
            i=case["ip"],
            s="postmaster@" + case["domain"],
            h=case["helo"],
            timeout=request["timeout"],
            querytime=0,
        )
        result, _code, explanation = query.check(spf=case["record"])
        results.append({"id": case["id"], "result": result, "explanation": explanation})
    print(json.dumps({"results": results}))


main()
