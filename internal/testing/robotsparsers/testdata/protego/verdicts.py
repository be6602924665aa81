"""Reads {"robots": BODY, "queries": [[AGENT, URL], ...]} as JSON on stdin
and prints the list of Protego's can_fetch verdicts, one per query, as
JSON: Debian's python3-protego (0.2.1 in bookworm), the robots.txt parser
of Scrapy, which internal/testing/robotsparsers runs."""
import json
import sys

from protego import Protego

req = json.load(sys.stdin)
rp = Protego.parse(req["robots"])
json.dump([rp.can_fetch(url, agent) for agent, url in req["queries"]], sys.stdout)
