'use strict';
// Execution of one operation with its expectResult / expectError / saveResultAsEntity, and
// the lists of implemented operations used to skip tests before they run.

const { toNative } = require('./args');
const { match, MatchError, describe } = require('./match');
const { checkExpectedError, describeError, AssertionFailure } = require('./errors');
const { NotImplementedError } = require('./entities');
const {
  kEntityOps, kCursorResultOps, savedEntityType, prepare, errorResult, bulkWriteResult, updateResult,
} = require('./entity_operations');
const { testRunnerOps } = require('./special_operations');

// Every implemented operation name, by entity type (for skipping tests before they run).
function isImplemented(entityType, name) {
  if (entityType === 'testRunner') return name in testRunnerOps;
  if (entityType === undefined) {
    return Object.values(kEntityOps).some((ops) => name in ops);
  }
  const ops = kEntityOps[entityType];
  return ops !== undefined && name in ops;
}

class OperationError extends Error {
  constructor(op, index, cause) {
    const where = `operation ${index ?? ''}${index !== undefined ? ' ' : ''}(${op.name} on ${op.object})`;
    super(`${where}: ${cause instanceof AssertionFailure || cause instanceof MatchError
      ? cause.message : `unexpected error ${describeError(cause)}`}`);
    this.name = 'OperationError';
    this.cause = cause;
    this.op = op;
  }
}

async function runOperation(op, ctx, { inCallback = false, index } = {}) {
  const wrap = (e) => (e instanceof OperationError || e instanceof NotImplementedError
    ? e : new OperationError(op, index, e));
  if (op.object === 'testRunner') {
    const impl = testRunnerOps[op.name];
    if (!impl) throw new NotImplementedError(`runner: operation testRunner.${op.name} not implemented`);
    try {
      await impl(op.arguments || {}, ctx);
    } catch (e) {
      throw wrap(e);
    }
    return;
  }
  const { type, value } = ctx.entities.entry(op.object);
  const ops = kEntityOps[type];
  const impl = ops && ops[op.name];
  if (!impl) throw new NotImplementedError(`runner: operation ${op.name} not implemented`);
  let result;
  let error = null;
  try {
    const args = prepare(op.arguments, ctx);
    result = await impl(value, args, ctx, op);
  } catch (e) {
    if (e instanceof NotImplementedError || e instanceof OperationError) throw e;
    error = e;
  }
  if (op.ignoreResultAndError) {
    if (error && inCallback) throw error;
    return;
  }
  try {
    if (op.expectError) {
      if (!error) {
        throw new AssertionFailure(`expected an error (${JSON.stringify(toNative(op.expectError))}), ` +
          `got result ${describe(result)}`);
      }
      checkExpectedError(op.expectError, error, { entities: ctx.entities, errorResult });
    } else if (error) {
      throw new OperationError(op, index, error);
    }
    if (op.expectResult !== undefined && !op.expectError) {
      match(op.expectResult, result,
        { entities: ctx.entities, rootArrayElements: kCursorResultOps.has(op.name) }, true);
    }
  } catch (e) {
    throw wrap(e instanceof MatchError ? new MatchError(e.path,
      `expectResult mismatch: ${e.message.slice(e.path.length + 2)}`) : e);
  }
  if (error && inCallback) throw error;
  if (op.saveResultAsEntity) {
    ctx.entities.set(op.saveResultAsEntity, savedEntityType(op.name), result);
  }
}

// Operations (including nested ones) of a test, for the pre-run checks.
function allOperations(operations) {
  const out = [];
  for (const op of operations || []) {
    out.push(op);
    if (op.arguments && Array.isArray(op.arguments.callback)) {
      out.push(...allOperations(op.arguments.callback));
    }
    if (op.arguments && op.arguments.operation) out.push(...allOperations([op.arguments.operation]));
  }
  return out;
}

module.exports = {
  runOperation,
  allOperations,
  isImplemented,
  savedEntityType,
  errorResult,
  bulkWriteResult,
  updateResult,
  kCursorResultOps,
  OperationError,
};

