// Signs what wba_e2e_test.go asks with Cloudflare's web-bot-auth package
// (package-lock.json pins it), the way its README does: signatureHeaders
// over a Request, with a signer from signerFromJWK. It never sends
// anything; the Go test sends the requests to the middleware.
//
// stdin: {"keys": {name: private JWK}, "directory": {...} | null,
//         "requests": [{"name", "key", "method", "url", "signatureAgent"?,
//                       "components"?, "created", "expires"}]}
//   components: strings, or {"name", "parameters": {param: value}} for a
//   component with parameters (the package takes a Map).
// stdout: {"keyids": {name: keyid}, "directory": {Signature, Signature-Input},
//          "requests": [{"name", "headers": {...}}]}
import { readFileSync } from "node:fs";
import { signatureHeaders, directoryResponseHeaders, jwkToKeyID, helpers } from "web-bot-auth";
import { signerFromJWK } from "web-bot-auth/crypto";

const job = JSON.parse(readFileSync(0, "utf8"));
const date = (s) => new Date(s * 1000);

const signers = {};
const keyids = {};
for (const [name, jwk] of Object.entries(job.keys)) {
  signers[name] = await signerFromJWK(jwk);
  // The package's own thumbprint, for the test to compare with RFC 7638's.
  const { d, p, q, dp, dq, qi, ...pub } = jwk;
  keyids[name] = await jwkToKeyID(pub, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE);
}

const out = { keyids, requests: [] };

if (job.directory) {
  // The directory response's possession proof, as the package makes it:
  // one signature per key over the request's @authority (tag
  // http-message-signatures-directory).
  const dir = job.directory;
  const pair = {
    request: new Request(dir.url),
    response: new Response(null, { status: 200 }),
  };
  out.directory = await directoryResponseHeaders(
    pair,
    dir.keys.map((k) => signers[k]),
    { created: date(dir.created), expires: date(dir.expires) },
  );
}

for (const r of job.requests ?? []) {
  const headers = {};
  if (r.signatureAgent) headers["Signature-Agent"] = r.signatureAgent;
  const request = new Request(r.url, { method: r.method, headers });
  const params = { created: date(r.created), expires: date(r.expires) };
  if (r.components) {
    params.components = r.components.map((c) =>
      typeof c === "string" ? c : { name: c.name, parameters: new Map(Object.entries(c.parameters)) },
    );
  }
  const signed = await signatureHeaders(request, signers[r.key], params);
  out.requests.push({ name: r.name, headers: { ...headers, ...signed } });
}

process.stdout.write(JSON.stringify(out));
