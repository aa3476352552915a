'use strict';
// Loading test files and turning operation arguments into Node driver arguments.
//
// Test files are parsed as canonical Extended JSON (relaxed: false), so documents keep their
// BSON types (Int32, Int64, Double, Decimal128) on their way to the server. Driver options
// (limit, batchSize, maxTimeMS, ...) are converted to plain JS numbers, which the driver expects.

const fs = require('fs');
const { BSON } = require('mongodb');

const { EJSON } = BSON;

function parseTestFile(text) {
  return EJSON.parse(text, { relaxed: false });
}

function loadTestFile(path) {
  return parseTestFile(fs.readFileSync(path, 'utf8'));
}

// Deep copy of `value` with Int32/Double/Long turned into JS numbers (Long beyond 2^53 stays).
function toNative(value) {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(toNative);
  switch (value._bsontype) {
    case 'Int32':
    case 'Double':
      return Number(value.valueOf());
    case 'Long': {
      const n = Number(value.toString());
      return Number.isSafeInteger(n) ? n : value;
    }
    case undefined:
      break;
    default:
      return value;
  }
  if (value instanceof Date || ArrayBuffer.isView(value) || value instanceof RegExp) return value;
  const out = {};
  for (const [k, v] of Object.entries(value)) out[k] = toNative(v);
  return out;
}

// Arguments whose values are sent to the server as data and keep their BSON types.
const kDataArguments = new Set([
  'document', 'documents', 'filter', 'update', 'replacement', 'pipeline', 'command', 'requests',
  'models', 'keys', 'let', 'projection', 'hint', 'arrayFilters', 'comment', 'definition',
  'model', 'validator', 'fieldName', 'min', 'max', 'callback', 'operation', 'entities',
  'failPoint', 'event', 'source', 'metadata', 'id', 'index', 'encryptedFields', 'timeseries',
  'clusteredIndex', 'changeStreamPreAndPostImages', 'startAfter', 'resumeAfter',
  'startAtOperationTime', 'expectResult',
]);

// Splits `args` into native options, keeping data arguments untouched.
function nativeArguments(args = {}) {
  const out = {};
  for (const [key, value] of Object.entries(args)) {
    out[key] = kDataArguments.has(key) ? value : toNative(value);
  }
  return out;
}

module.exports = { parseTestFile, loadTestFile, toNative, nativeArguments, kDataArguments };
