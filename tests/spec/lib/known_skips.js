'use strict';
// Tests that cannot pass through the Node.js driver whatever the server does. Each entry names
// the test ids it covers (a regular expression, or a list of ids) and why; a test listed here is
// skipped.

const kKnownSkips = [
  {
    // aggregate, bulk writes (insertMany too) and findAndModify drop the option when false;
    // insertOne, replaceOne and the update helpers send it.
    test: /^crud\/bypassDocumentValidation: (Aggregate with \$out|BulkWrite|FindOneAndReplace|FindOneAndUpdate|InsertMany) passes bypassDocumentValidation: false$/,
    reason: 'driver: the Node.js driver omits bypassDocumentValidation: false for this helper',
  },
  {
    // The driver's insert path treats `_id: null` as missing and generates an ObjectId before
    // sending (checked against quarryd: the document arrives with an ObjectId _id).
    test: /^crud\/create-null-ids: inserting _id with type null via (insertOne|insertMany|bulkWrite)$/,
    reason: 'driver: the Node.js driver replaces a null _id with a new ObjectId before sending',
  },
  {
    // The driver records an insert's _id in the bulk result when it queues the insert; after a
    // network error on the retry (onPrimaryTransactionalWrite closes the connection twice and
    // nothing is committed) the error's result still lists it.
    test: /^retryable-writes\/bulkWrite: First insertOne is never committed$/,
    reason: 'driver: the Node.js driver reports insertedIds for inserts that were never acknowledged',
  },
  {
    // mongodb 7.x (lib/sessions.js) adds wtimeout: 10000 to commitTransaction's and
    // abortTransaction's writeConcern whenever the transaction has one, where these tests expect
    // the write concern as given; the command is otherwise what they expect.
    ids: [
      'transactions/delete: collection writeConcern ignored for delete',
      'transactions/error-labels-errorLabels: add RetryableWriteError and UnknownTransactionCommitResult labels to writeConcernError ShutdownInProgress',
      'transactions/error-labels: add UnknownTransactionCommitResult label to writeConcernError WriteConcernTimeout',
      'transactions/error-labels: add UnknownTransactionCommitResult label to writeConcernError WriteConcernTimeout with wtimeout',
      'transactions/error-labels: omit UnknownTransactionCommitResult label from writeConcernError UnsatisfiableWriteConcern',
      'transactions/error-labels: omit UnknownTransactionCommitResult label from writeConcernError UnknownReplWriteConcern',
      'transactions/error-labels: add UnknownTransactionCommitResult label to MaxTimeMSExpired',
      'transactions/error-labels: add UnknownTransactionCommitResult label to writeConcernError MaxTimeMSExpired',
      'transactions/findOneAndDelete: collection writeConcern ignored for findOneAndDelete',
      'transactions/findOneAndReplace: collection writeConcern ignored for findOneAndReplace',
      'transactions/findOneAndUpdate: collection writeConcern ignored for findOneAndUpdate',
      'transactions/insert: collection writeConcern ignored for insert',
      'transactions/retryable-abort-errorLabels: abortTransaction succeeds after WriteConcernError InterruptedAtShutdown',
      'transactions/retryable-abort-errorLabels: abortTransaction succeeds after WriteConcernError InterruptedDueToReplStateChange',
      'transactions/retryable-abort-errorLabels: abortTransaction succeeds after WriteConcernError PrimarySteppedDown',
      'transactions/retryable-abort-errorLabels: abortTransaction succeeds after WriteConcernError ShutdownInProgress',
      'transactions/retryable-abort: abortTransaction does not retry after WriteConcernError Interrupted',
      'transactions/retryable-commit-errorLabels: commitTransaction succeeds after WriteConcernError InterruptedAtShutdown',
      'transactions/retryable-commit-errorLabels: commitTransaction succeeds after WriteConcernError InterruptedDueToReplStateChange',
      'transactions/retryable-commit-errorLabels: commitTransaction succeeds after WriteConcernError PrimarySteppedDown',
      'transactions/retryable-commit-errorLabels: commitTransaction succeeds after WriteConcernError ShutdownInProgress',
      'transactions/retryable-commit: commitTransaction is not retried after UnsatisfiableWriteConcern error',
      'transactions/transaction-options: transaction options inherited from defaultTransactionOptions',
      'transactions/transaction-options: startTransaction options override defaults',
      'transactions/transaction-options: defaultTransactionOptions override client options',
      'transactions/transaction-options: readConcern local in defaultTransactionOptions',
      'transactions/transaction-options: client writeConcern ignored for bulk',
      'transactions/update: collections writeConcern ignored for update',
      'transactions/write-concern: commit with majority',
      'transactions/write-concern: abort with majority',
    ],
    reason: 'driver: the Node.js driver adds wtimeout: 10000 to the write concern of every commit and abort',
  },
  {
    // mongodb 7.x (lib/sessions.js applySession) starts a transaction's readConcern from the
    // client's ReadConcern object itself and adds afterClusterTime to it, so every later
    // transaction of any session of that client sends the time too (reproduced against quarryd
    // with two sessions of one client: the second session's first insert carries the first
    // one's operationTime).
    ids: ['transactions/transaction-options: transaction options inherited from client'],
    reason: "driver: the Node.js driver writes afterClusterTime into the client's shared readConcern",
  },
];

function knownSkipReason(id) {
  const entry = kKnownSkips.find((e) => (e.test ? e.test.test(id) : e.ids.includes(id)));
  return entry ? entry.reason : null;
}

module.exports = { kKnownSkips, knownSkipReason };
