// Validates declaration files against a JSON Schema with Ajv, as an editor
// would: node validate.mjs SCHEMA FILE... prints one JSON line per file,
// {"file": ..., "valid": true|false, "errors": [...]}. Files are read with
// the yaml package (YAML 1.2 core schema: 42 is a number, yes a string, a
// timestamp a string); a .json file is YAML too.
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { parse } from "yaml";

const [schemaFile, ...files] = process.argv.slice(2);
// strict: unknown keywords and formats are errors; strictTypes and
// strictRequired are Ajv's own style rules (a type beside every
// keyword in an "if" or "then"), which JSON Schema does not make.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
addFormats(ajv);
const validate = ajv.compile(JSON.parse(readFileSync(schemaFile, "utf8")));
for (const file of files) {
  let doc;
  try {
    doc = parse(readFileSync(file, "utf8"), { uniqueKeys: true, merge: false });
  } catch (e) {
    console.log(JSON.stringify({ file, valid: false, errors: ["not YAML: " + e.message] }));
    continue;
  }
  const valid = validate(doc);
  const errors = (validate.errors || []).map((e) => `${e.instancePath || "/"} ${e.message}${e.params && e.params.allowedValues ? " " + JSON.stringify(e.params.allowedValues) : ""}`);
  console.log(JSON.stringify({ file, valid, errors }));
}
