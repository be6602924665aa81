// Loads agentready's A2A agent cards with the A2A project's JavaScript SDK,
// as its clients load them, and writes what the SDK made of each to a JSON
// file (stdout is not used: the SDK's verifier logs to it).
//
//   node load.mjs <base URL> <results file> < cases.json
//
// cases.json is [{"name", "version": "1.0"|"0.3", "jwk"?}]; the Go test
// (a2a_sdk_test.go) serves case <name>'s card at
// <base URL>/<name>/.well-known/agent-card.json.
//
// v1.0 cards: @a2a-js/sdk 1.x's ClientFactory with its default options (no
// legacyCompat) fetches the card and picks a transport from
// supportedInterfaces; AgentCard.fromJSON/toJSON is the SDK's ProtoJSON
// model of the card; canonicalizeAgentCard and verifyAgentCardSignature
// its signing code. v0.3 cards: the 0.3 SDK's ClientFactory.
import { readFileSync, writeFileSync } from 'node:fs';
import { AgentCard, canonicalizeAgentCard, verifyAgentCardSignature } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { ClientFactory as ClientFactoryV03 } from 'a2a-sdk-v03/client';

const [base, out] = process.argv.slice(2);
const cases = JSON.parse(readFileSync(0, 'utf8'));
const results = [];
for (const c of cases) {
  const r = { name: c.name };
  const at = `${base}/${c.name}/`;
  try {
    if (c.version === '0.3') {
      const client = await new ClientFactoryV03().createFromUrl(at);
      r.transport = client.transport.constructor.name;
      r.endpoint = client.transport.endpoint;
    } else {
      const client = await new ClientFactory().createFromUrl(at);
      r.transport = client.transport.constructor.name;
      r.endpoint = client.transport.endpoint;
      const raw = await (await fetch(new URL('.well-known/agent-card.json', at))).json();
      r.roundTrip = AgentCard.toJSON(AgentCard.fromJSON(raw));
      r.canonical = canonicalizeAgentCard(raw);
      if (c.jwk) {
        const key = () => crypto.subtle.importKey('jwk', c.jwk, { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify']);
        try {
          await verifyAgentCardSignature(key)(raw);
          r.verified = true;
        } catch (e) {
          r.verified = false;
          r.verifyError = String(e);
        }
      }
    }
  } catch (e) {
    r.error = String(e && e.stack ? e.stack : e);
  }
  results.push(r);
}
writeFileSync(out, JSON.stringify(results, null, 2));
