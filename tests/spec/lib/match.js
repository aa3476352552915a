'use strict';
// Value matching for the unified test format ("Evaluating Matches"): special $$ operators,
// flexible numeric comparison, extra fields allowed in root-level documents only.
// Also the exact comparison used for `outcome` (no extra fields anywhere, key order free).

const { BSON } = require('mongodb');

const { EJSON } = BSON;

class MatchError extends Error {
  constructor(path, message) {
    super(`${path || '$'}: ${message}`);
    this.name = 'MatchError';
    this.path = path || '$';
  }
}

// A plain document: an object that is not an array, a BSON wrapper, a Date, a RegExp or bytes.
function isDocument(v) {
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return false;
  if (v._bsontype !== undefined) return false;
  if (v instanceof Date || v instanceof RegExp || ArrayBuffer.isView(v)) return false;
  return true;
}

// The name of a special operator if `v` is `{ $$op: ... }` (exactly one key starting "$$").
function specialOperator(v) {
  if (!isDocument(v)) return null;
  const keys = Object.keys(v);
  if (keys.length === 1 && keys[0].startsWith('$$')) return keys[0];
  return null;
}

function bsonType(v) {
  return v !== null && typeof v === 'object' ? v._bsontype : undefined;
}

function isNumeric(v) {
  if (typeof v === 'number' || typeof v === 'bigint') return true;
  const t = bsonType(v);
  return t === 'Int32' || t === 'Double' || t === 'Long';
}

// Numeric value as a number or, for integers beyond 2^53, a BigInt.
function numericValue(v) {
  if (typeof v === 'number' || typeof v === 'bigint') return v;
  const t = bsonType(v);
  if (t === 'Long') {
    const big = BigInt(v.toString());
    return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(big)
      : big;
  }
  return Number(v.valueOf());
}

// -1, 0 or 1; NaN if not comparable (NaN operands).
function compareNumbers(a, b) {
  let x = numericValue(a);
  let y = numericValue(b);
  if (typeof x === 'bigint' || typeof y === 'bigint') {
    const xi = typeof x === 'bigint' || Number.isInteger(x);
    const yi = typeof y === 'bigint' || Number.isInteger(y);
    if (xi && yi) {
      x = BigInt(x);
      y = BigInt(y);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    x = Number(x);
    y = Number(y);
  }
  if (Number.isNaN(x) && Number.isNaN(y)) return 0;
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  return x < y ? -1 : x > y ? 1 : 0;
}

const kTypeNames = {
  double: 1, string: 2, object: 3, array: 4, binData: 5, undefined: 6, objectId: 7, bool: 8,
  date: 9, null: 10, regex: 11, dbPointer: 12, javascript: 13, symbol: 14,
  javascriptWithScope: 15, int: 16, timestamp: 17, long: 18, decimal: 19, minKey: -1,
  maxKey: 127,
};

// Whether `actual` (a value as the driver returns it) can be of the $type alias `name`.
// The driver turns int32 and double (and int64 within 2^53) into JS numbers, so a JS number is
// accepted as "double", and as "int"/"long" when it is an integer in range.
function hasType(actual, name) {
  if (!(name in kTypeNames) && name !== 'number') {
    throw new MatchError('', `unknown $$type name "${name}"`);
  }
  const t = bsonType(actual);
  switch (name) {
    case 'number':
      return isNumeric(actual) || t === 'Decimal128';
    case 'double':
      return typeof actual === 'number' || t === 'Double';
    case 'int':
      return t === 'Int32' ||
        (typeof actual === 'number' && Number.isInteger(actual) &&
         actual >= -2147483648 && actual <= 2147483647);
    case 'long':
      return t === 'Long' || typeof actual === 'bigint' ||
        (typeof actual === 'number' && Number.isInteger(actual));
    case 'decimal':
      return t === 'Decimal128';
    case 'string':
      return typeof actual === 'string';
    case 'object':
      return isDocument(actual) || t === 'DBRef';
    case 'array':
      return Array.isArray(actual);
    case 'binData':
      return t === 'Binary' || ArrayBuffer.isView(actual);
    case 'undefined':
      return actual === undefined;
    case 'objectId':
      return t === 'ObjectId';
    case 'bool':
      return typeof actual === 'boolean';
    case 'date':
      return actual instanceof Date;
    case 'null':
      return actual === null;
    case 'regex':
      return actual instanceof RegExp || t === 'BSONRegExp';
    case 'dbPointer':
      return t === 'DBPointer' || t === 'DBRef';
    case 'javascript':
      return t === 'Code' && actual.scope == null;
    case 'javascriptWithScope':
      return t === 'Code' && actual.scope != null;
    case 'symbol':
      return t === 'BSONSymbol' || t === 'Symbol';
    case 'timestamp':
      return t === 'Timestamp';
    case 'minKey':
      return t === 'MinKey';
    case 'maxKey':
      return t === 'MaxKey';
    default:
      return false;
  }
}

function bytesOf(v) {
  if (bsonType(v) === 'Binary') return Buffer.from(v.buffer.subarray(0, v.position ?? v.length()));
  if (ArrayBuffer.isView(v)) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return null;
}

function describe(v) {
  try {
    if (v === undefined) return 'undefined (absent)';
    const s = EJSON.stringify(v, { relaxed: true });
    return s.length > 300 ? `${s.slice(0, 300)}...` : s;
  } catch (_) {
    return String(v);
  }
}

function join(path, key) {
  if (typeof key === 'number') return `${path || '$'}[${key}]`;
  return path ? `${path}.${key}` : key;
}

// Equality of two non-document, non-array values (numbers by value).
function scalarsEqual(expected, actual) {
  if (isNumeric(expected) && isNumeric(actual)) return compareNumbers(expected, actual) === 0;
  const te = bsonType(expected);
  const ta = bsonType(actual);
  if (expected === null || actual === null) return expected === actual;
  if (expected === undefined || actual === undefined) return expected === actual;
  if (typeof expected !== 'object' || typeof actual !== 'object') return expected === actual;
  if (expected instanceof Date || actual instanceof Date) {
    return expected instanceof Date && actual instanceof Date &&
      expected.getTime() === actual.getTime();
  }
  if ((te === 'Binary' || ArrayBuffer.isView(expected)) &&
      (ta === 'Binary' || ArrayBuffer.isView(actual))) {
    const subE = te === 'Binary' ? expected.sub_type : 0;
    const subA = ta === 'Binary' ? actual.sub_type : 0;
    return subE === subA && bytesOf(expected).equals(bytesOf(actual));
  }
  const regexE = expected instanceof RegExp ? { p: expected.source, o: expected.flags }
    : te === 'BSONRegExp' ? { p: expected.pattern, o: expected.options } : null;
  const regexA = actual instanceof RegExp ? { p: actual.source, o: actual.flags }
    : ta === 'BSONRegExp' ? { p: actual.pattern, o: actual.options } : null;
  if (regexE || regexA) {
    const sort = (s) => [...s].sort().join('');
    return !!regexE && !!regexA && regexE.p === regexA.p && sort(regexE.o) === sort(regexA.o);
  }
  if (te !== ta) return false;
  switch (te) {
    case 'ObjectId':
      return expected.toHexString() === actual.toHexString();
    case 'Decimal128':
      return expected.toString() === actual.toString();
    case 'Timestamp':
      return expected.t === actual.t && expected.i === actual.i;
    case 'MinKey':
    case 'MaxKey':
      return true;
    case 'Code':
      if (expected.code !== actual.code) return false;
      if (expected.scope == null || actual.scope == null) return expected.scope == actual.scope;
      return exactEqual(expected.scope, actual.scope);
    case 'BSONSymbol':
      return expected.valueOf() === actual.valueOf();
    case 'DBRef':
      return exactEqual(expected.toJSON(), actual.toJSON());
    default:
      return describe(expected) === describe(actual);
  }
}

// Exact comparison (used for `outcome` and values inside CodeWScope): documents must have the
// same keys in any order, arrays the same elements in order, numbers compare by value.
function exactEqual(expected, actual) {
  try {
    matchExact(expected, actual, '');
    return true;
  } catch (e) {
    if (e instanceof MatchError) return false;
    throw e;
  }
}

function matchExact(expected, actual, path) {
  if (actual instanceof Map) actual = Object.fromEntries(actual);
  if (bsonType(expected) === 'DBRef') expected = expected.toJSON();
  if (bsonType(actual) === 'DBRef') actual = actual.toJSON();
  if (isDocument(expected)) {
    if (!isDocument(actual)) {
      throw new MatchError(path, `expected a document ${describe(expected)}, got ${describe(actual)}`);
    }
    for (const key of Object.keys(expected)) {
      if (!(key in actual) || actual[key] === undefined) {
        throw new MatchError(join(path, key), `missing; expected ${describe(expected[key])}`);
      }
      matchExact(expected[key], actual[key], join(path, key));
    }
    for (const key of Object.keys(actual)) {
      if (!(key in expected) && actual[key] !== undefined) {
        throw new MatchError(join(path, key), `unexpected field with value ${describe(actual[key])}`);
      }
    }
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) {
      throw new MatchError(path, `expected an array, got ${describe(actual)}`);
    }
    if (expected.length !== actual.length) {
      throw new MatchError(path, `expected ${expected.length} elements, got ${actual.length}: ` +
        describe(actual));
    }
    expected.forEach((e, i) => matchExact(e, actual[i], join(path, i)));
    return;
  }
  if (!scalarsEqual(expected, actual)) {
    throw new MatchError(path, `expected ${describe(expected)}, got ${describe(actual)}`);
  }
}

// Matches `actual` against `expected` following the unified format's rules; throws MatchError.
//   ctx.entities: an EntityMap (for $$matchesEntity and $$sessionLsid); may be undefined.
//   isRoot: whether `actual` is a root-level document (extra fields allowed).
function match(expected, actual, ctx = {}, isRoot = true, path = '') {
  // The driver builds some command fields (sort) as Maps to keep their order.
  if (actual instanceof Map) actual = Object.fromEntries(actual);
  const op = specialOperator(expected);
  if (op) {
    matchOperator(op, expected[op], actual, ctx, isRoot, path, /* keyPresent= */ true);
    return;
  }
  if (bsonType(actual) === 'DBRef' && isDocument(expected)) actual = actual.toJSON();
  if (isDocument(expected)) {
    if (!isDocument(actual)) {
      throw new MatchError(path, `expected a document ${describe(expected)}, got ${describe(actual)}`);
    }
    for (const key of Object.keys(expected)) {
      const value = expected[key];
      const valueOp = specialOperator(value);
      const present = key in actual && actual[key] !== undefined;
      if (valueOp === '$$exists') {
        if (value.$$exists && !present) {
          throw new MatchError(join(path, key), 'expected to exist, but it is absent');
        }
        if (!value.$$exists && present) {
          throw new MatchError(join(path, key),
            `expected to be absent, got ${describe(actual[key])}`);
        }
        continue;
      }
      if (valueOp === '$$unsetOrMatches') {
        if (!present) continue;
        match(value.$$unsetOrMatches, actual[key], ctx, false, join(path, key));
        continue;
      }
      if (!present) {
        throw new MatchError(join(path, key), `missing; expected ${describe(value)}`);
      }
      match(value, actual[key], ctx, false, join(path, key));
    }
    if (!isRoot) {
      for (const key of Object.keys(actual)) {
        if (!(key in expected) && actual[key] !== undefined) {
          throw new MatchError(join(path, key),
            `unexpected field in a nested document (value ${describe(actual[key])})`);
        }
      }
    }
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) {
      throw new MatchError(path, `expected an array, got ${describe(actual)}`);
    }
    if (expected.length !== actual.length) {
      throw new MatchError(path, `expected ${expected.length} elements, got ${actual.length}: ` +
        describe(actual));
    }
    const elementsAreRoot = ctx.rootArrayElements === true && path === '';
    expected.forEach((e, i) => match(e, actual[i], ctx, elementsAreRoot, join(path, i)));
    return;
  }
  if (!scalarsEqual(expected, actual)) {
    throw new MatchError(path, `expected ${describe(expected)}, got ${describe(actual)}`);
  }
}

function matchOperator(op, arg, actual, ctx, isRoot, path) {
  switch (op) {
    case '$$exists':
      // Outside a document key it can only assert on the value itself.
      if (arg && actual === undefined) throw new MatchError(path, 'expected to exist');
      if (!arg && actual !== undefined) throw new MatchError(path, 'expected to be absent');
      return;
    case '$$unsetOrMatches':
      if (actual === undefined || actual === null) return;
      match(arg, actual, ctx, isRoot, path);
      return;
    case '$$type': {
      const names = Array.isArray(arg) ? arg : [arg];
      if (actual === undefined) {
        throw new MatchError(path, `expected type ${names.join('|')}, but the value is absent`);
      }
      if (!names.some((n) => hasType(actual, n))) {
        throw new MatchError(path, `expected type ${names.join('|')}, got ${describe(actual)}`);
      }
      return;
    }
    case '$$matchesEntity': {
      if (!ctx.entities) throw new MatchError(path, '$$matchesEntity without an entity map');
      const value = ctx.entities.get(arg);
      match(value, actual, ctx, isRoot, path);
      return;
    }
    case '$$matchesHexBytes': {
      if (typeof arg !== 'string' || arg.length % 2 !== 0 || /[^0-9a-fA-F]/.test(arg)) {
        throw new MatchError(path, `malformed $$matchesHexBytes "${arg}"`);
      }
      const bytes = bytesOf(actual) ?? (typeof actual === 'string' ? Buffer.from(actual, 'latin1') : null);
      if (!bytes || bytes.toString('hex') !== arg.toLowerCase()) {
        throw new MatchError(path, `expected bytes ${arg}, got ${describe(actual)}`);
      }
      return;
    }
    case '$$sessionLsid': {
      if (!ctx.entities) throw new MatchError(path, '$$sessionLsid without an entity map');
      const lsid = ctx.entities.sessionLsid(arg);
      if (!exactEqual(lsid, actual)) {
        throw new MatchError(path, `expected lsid of ${arg} ${describe(lsid)}, got ${describe(actual)}`);
      }
      return;
    }
    case '$$lte':
      if (!isNumeric(actual) || !(compareNumbers(actual, arg) <= 0)) {
        throw new MatchError(path, `expected a number <= ${describe(arg)}, got ${describe(actual)}`);
      }
      return;
    case '$$matchAsDocument': {
      if (typeof actual !== 'string') {
        throw new MatchError(path, `$$matchAsDocument needs a string, got ${describe(actual)}`);
      }
      let parsed;
      try {
        parsed = EJSON.parse(actual, { relaxed: false });
      } catch (e) {
        throw new MatchError(path, `not Extended JSON: ${e.message}`);
      }
      match(arg, parsed, ctx, false, path);
      return;
    }
    case '$$matchAsRoot':
      match(arg, actual, ctx, true, path);
      return;
    default:
      throw new MatchError(path, `unknown special operator ${op}`);
  }
}

module.exports = {
  MatchError,
  match,
  matchExact,
  exactEqual,
  isDocument,
  isNumeric,
  compareNumbers,
  hasType,
  describe,
  specialOperator,
};
