// Reads {"robots": BODY, "queries": [[AGENT, URL], ...]} as JSON on stdin
// and prints the list of robots-parser's isAllowed verdicts, one per
// query, as JSON: the npm package robots-parser (package-lock.json pins
// it), which internal/testing/robotsparsers runs.
// The file is read as served at https://outdoorsupply.example/robots.txt:
// isAllowed answers undefined for a URL of another origin, an error here.
import robotsParser from 'robots-parser';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const req = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const robots = robotsParser('https://outdoorsupply.example/robots.txt', req.robots);
const verdicts = req.queries.map(([agent, url]) => {
  const v = robots.isAllowed(url, agent);
  if (typeof v !== 'boolean') {
    throw new Error(`isAllowed(${JSON.stringify(url)}, ${JSON.stringify(agent)}) answered ${v}: not a URL of the file's origin`);
  }
  return v;
});
process.stdout.write(JSON.stringify(verdicts));
