'use strict';
// Tests that cannot pass through the Node.js driver whatever the server does. Each entry names
// the test ids it covers (a regular expression) and why; a test listed here is skipped.

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
];

function knownSkipReason(id) {
  const entry = kKnownSkips.find((e) => e.test.test(id));
  return entry ? entry.reason : null;
}

module.exports = { kKnownSkips, knownSkipReason };
