'use strict';
// expectError assertions and a one-line description of any error.

const { MongoServerError, MongoOperationTimeoutError } = require('mongodb');
const { match, MatchError, describe } = require('./match');

// Names for the error codes the spec tests mention, for errors that carry only a code.
const kCodeNames = {
  6: 'HostUnreachable', 7: 'HostNotFound', 8: 'UnknownError', 24: 'LockTimeout',
  26: 'NamespaceNotFound', 43: 'CursorNotFound', 48: 'NamespaceExists', 50: 'MaxTimeMSExpired',
  51: 'UnknownReplWriteConcern', 59: 'CommandNotFound', 63: 'StaleShardVersion',
  64: 'WriteConcernFailed', 72: 'InvalidOptions', 89: 'NetworkTimeout', 91: 'ShutdownInProgress',
  112: 'WriteConflict', 121: 'DocumentValidationFailure', 133: 'FailedToSatisfyReadPreference',
  150: 'StaleEpoch', 189: 'PrimarySteppedDown', 216: 'ElectionInProgress',
  234: 'RetryChangeStream', 251: 'NoSuchTransaction', 262: 'ExceededTimeLimit',
  263: 'OperationNotSupportedInTransaction', 280: 'ChangeStreamFatalError',
  359: 'ChangeStreamHistoryLost', 9001: 'SocketException', 10107: 'NotWritablePrimary',
  11000: 'DuplicateKey', 11600: 'InterruptedAtShutdown', 11601: 'Interrupted',
  11602: 'InterruptedDueToReplStateChange', 13435: 'NotPrimaryNoSecondaryOk',
  13436: 'NotPrimaryOrSecondary', 40324: 'Location40324', 40573: 'Location40573',
};

class AssertionFailure extends Error {
  constructor(message) {
    super(message);
    this.name = 'AssertionFailure';
  }
}

// Every (message, code, codeName) an error carries, including bulk write errors.
function errorParts(error) {
  const parts = [{ message: error.message, code: error.code, codeName: error.codeName }];
  if (error.errorResponse && typeof error.errorResponse === 'object') {
    const r = error.errorResponse;
    parts.push({ message: r.errmsg, code: r.code, codeName: r.codeName });
  }
  for (const we of error.writeErrors || []) {
    const e = we.err ?? we;
    parts.push({ message: e.errmsg ?? we.errmsg, code: e.code ?? we.code, codeName: e.codeName });
  }
  const wce = error.writeConcernError ?? error.err ?? error.result?.writeConcernError;
  if (wce && typeof wce === 'object') {
    const e = wce.result ?? wce;
    parts.push({ message: e.errmsg ?? wce.message, code: e.code ?? wce.code, codeName: e.codeName });
  }
  for (const wce2 of error.writeConcernErrors || []) {
    parts.push({ message: wce2.message ?? wce2.errmsg, code: wce2.code, codeName: wce2.codeName });
  }
  if (error.cause && error.cause !== error && typeof error.cause === 'object') {
    parts.push({ message: error.cause.message, code: error.cause.code, codeName: error.cause.codeName });
  }
  return parts;
}

function isServerError(error) {
  return error instanceof MongoServerError;
}

function hasLabel(error, label) {
  if (typeof error.hasErrorLabel === 'function') return error.hasErrorLabel(label);
  return Array.isArray(error.errorLabels) && error.errorLabels.includes(label);
}

// One-line description: "MongoServerError 59 CommandNotFound: no such command: 'x'".
function describeError(error) {
  if (!error || typeof error !== 'object') return String(error);
  const bits = [error.name || 'Error'];
  if (error.code !== undefined) bits.push(String(error.code));
  const codeName = error.codeName ?? kCodeNames[error.code];
  if (codeName) bits.push(codeName);
  let text = `${bits.join(' ')}: ${error.message}`;
  const writeErrors = error.writeErrors || [];
  if (writeErrors.length > 0) {
    const we = writeErrors[0].err ?? writeErrors[0];
    text += ` [writeErrors[0]: ${we.code} ${we.errmsg}]`;
  }
  return text.replace(/\s+/g, ' ').slice(0, 400);
}

// Checks `spec` (an expectedError) against `error`; throws AssertionFailure.
function checkExpectedError(spec, error, ctx) {
  const fail = (what) => {
    throw new AssertionFailure(`expectError.${what}; the error was ${describeError(error)}`);
  };
  if (spec.isClientError === true && isServerError(error)) fail('isClientError: expected a client error');
  if (spec.isClientError === false && !isServerError(error)) fail('isClientError: expected a server error');
  if (spec.isTimeoutError === true && !(error instanceof MongoOperationTimeoutError)) {
    fail('isTimeoutError: expected a timeout error');
  }
  if (spec.isTimeoutError === false && error instanceof MongoOperationTimeoutError) {
    fail('isTimeoutError: expected no timeout error');
  }
  const parts = errorParts(error);
  if (spec.errorContains !== undefined) {
    const needle = String(spec.errorContains).toLowerCase();
    if (!parts.some((p) => String(p.message ?? '').toLowerCase().includes(needle))) {
      fail(`errorContains: expected the message to contain "${spec.errorContains}"`);
    }
  }
  if (spec.errorCode !== undefined) {
    const code = Number(spec.errorCode);
    if (!isServerError(error)) fail(`errorCode: expected server error code ${code}`);
    if (!parts.some((p) => Number(p.code) === code)) fail(`errorCode: expected code ${code}`);
  }
  if (spec.errorCodeName !== undefined) {
    const name = String(spec.errorCodeName).toLowerCase();
    const ok = parts.some((p) => {
      const pn = p.codeName ?? kCodeNames[p.code];
      return pn !== undefined && String(pn).toLowerCase() === name;
    });
    if (!ok) fail(`errorCodeName: expected ${spec.errorCodeName}`);
  }
  for (const label of spec.errorLabelsContain || []) {
    if (!hasLabel(error, label)) fail(`errorLabelsContain: expected label ${label}`);
  }
  for (const label of spec.errorLabelsOmit || []) {
    if (hasLabel(error, label)) fail(`errorLabelsOmit: expected no label ${label}`);
  }
  if (spec.errorResponse !== undefined) {
    const response = error.errorResponse;
    if (!response) fail('errorResponse: the error carries no server response');
    try {
      match(spec.errorResponse, response, { entities: ctx.entities }, true);
    } catch (e) {
      if (e instanceof MatchError) fail(`errorResponse mismatch at ${e.message}`);
      throw e;
    }
  }
  if (spec.writeErrors !== undefined) {
    const actual = {};
    for (const [index, we] of error.writeErrors instanceof Map
      ? error.writeErrors.entries() : Object.entries(error.writeErrors || {})) {
      actual[String(index)] = we;
    }
    for (const [index, expected] of Object.entries(spec.writeErrors)) {
      if (!(index in actual)) fail(`writeErrors: no write error at index ${index}`);
      try {
        match(expected, actual[index], { entities: ctx.entities }, true);
      } catch (e) {
        if (e instanceof MatchError) fail(`writeErrors[${index}] mismatch at ${e.message}`);
        throw e;
      }
    }
    const extra = Object.keys(actual).filter((k) => !(k in spec.writeErrors));
    if (extra.length > 0) fail(`writeErrors: unexpected write errors at ${extra.join(',')}`);
  }
  if (spec.writeConcernErrors !== undefined) {
    const actual = error.writeConcernErrors || [];
    try {
      if (actual.length !== spec.writeConcernErrors.length) {
        throw new MatchError('', `expected ${spec.writeConcernErrors.length} write concern errors, got ${actual.length}`);
      }
      spec.writeConcernErrors.forEach((e, i) => match(e, actual[i], { entities: ctx.entities }, true));
    } catch (e) {
      if (e instanceof MatchError) fail(`writeConcernErrors mismatch at ${e.message}`);
      throw e;
    }
  }
  if (spec.expectResult !== undefined) {
    const result = ctx.errorResult ? ctx.errorResult(error) : undefined;
    try {
      match(spec.expectResult, result, { entities: ctx.entities }, true);
    } catch (e) {
      if (e instanceof MatchError) {
        throw new AssertionFailure(`expectError.expectResult mismatch at ${e.message}`);
      }
      throw e;
    }
  }
}

module.exports = {
  AssertionFailure,
  checkExpectedError,
  describeError,
  errorParts,
  isServerError,
  kCodeNames,
  describe,
};
