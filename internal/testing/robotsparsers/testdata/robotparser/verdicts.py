"""Reads {"robots": BODY, "queries": [[AGENT, URL], ...]} as JSON on stdin
and prints the list of urllib.robotparser's can_fetch verdicts, one per
query, as JSON: the Python standard library's robots.txt parser, which
internal/testing/robotsparsers runs."""
import json
import sys
import urllib.robotparser

req = json.load(sys.stdin)
rp = urllib.robotparser.RobotFileParser()
rp.parse(req["robots"].splitlines())
json.dump([rp.can_fetch(agent, url) for agent, url in req["queries"]], sys.stdout)
