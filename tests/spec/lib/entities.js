'use strict';
// The entity map of one test, and the client entity with its event recorder.

const { MongoClient, GridFSBucket, ReadPreference } = require('mongodb');
const { toNative } = require('./args');

class EntityError extends Error {
  constructor(message) {
    super(message);
    this.name = 'EntityError';
  }
}

// A feature the runner (or this machine) lacks; the test is skipped with this reason.
class NotImplementedError extends Error {
  constructor(message) {
    super(message);
    this.name = 'NotImplementedError';
  }
}

// Node driver event name -> unified format event name and its eventType.
const kEventNames = {
  commandStarted: ['commandStartedEvent', 'command'],
  commandSucceeded: ['commandSucceededEvent', 'command'],
  commandFailed: ['commandFailedEvent', 'command'],
  connectionPoolCreated: ['poolCreatedEvent', 'cmap'],
  connectionPoolReady: ['poolReadyEvent', 'cmap'],
  connectionPoolCleared: ['poolClearedEvent', 'cmap'],
  connectionPoolClosed: ['poolClosedEvent', 'cmap'],
  connectionCreated: ['connectionCreatedEvent', 'cmap'],
  connectionReady: ['connectionReadyEvent', 'cmap'],
  connectionClosed: ['connectionClosedEvent', 'cmap'],
  connectionCheckOutStarted: ['connectionCheckOutStartedEvent', 'cmap'],
  connectionCheckOutFailed: ['connectionCheckOutFailedEvent', 'cmap'],
  connectionCheckedOut: ['connectionCheckedOutEvent', 'cmap'],
  connectionCheckedIn: ['connectionCheckedInEvent', 'cmap'],
  serverDescriptionChanged: ['serverDescriptionChangedEvent', 'sdam'],
  serverHeartbeatStarted: ['serverHeartbeatStartedEvent', 'sdam'],
  serverHeartbeatSucceeded: ['serverHeartbeatSucceededEvent', 'sdam'],
  serverHeartbeatFailed: ['serverHeartbeatFailedEvent', 'sdam'],
  topologyDescriptionChanged: ['topologyDescriptionChangedEvent', 'sdam'],
  topologyOpening: ['topologyOpeningEvent', 'sdam'],
  topologyClosed: ['topologyClosedEvent', 'sdam'],
};

// Commands whose monitoring events are hidden unless observeSensitiveCommands is true.
const kSensitiveCommands = new Set([
  'authenticate', 'saslstart', 'saslcontinue', 'getnonce', 'createuser', 'updateuser',
  'copydbgetnonce', 'copydbsaslstart', 'copydb',
]);

function isSensitive(event) {
  const name = String(event.commandName || '').toLowerCase();
  if (kSensitiveCommands.has(name)) return true;
  // hello with speculativeAuthenticate is redacted by the driver to an empty document.
  if (name === 'hello' || name === 'ismaster') {
    const doc = event.command ?? event.reply;
    if (doc && typeof doc === 'object' && Object.keys(doc).length === 0) return true;
  }
  return false;
}

// Builds the connection string for a client entity from the runner's base URI and uriOptions.
function buildUri(baseUri, uriOptions = {}) {
  const url = new URL(baseUri);
  for (const [key, raw] of Object.entries(uriOptions)) {
    const value = toNative(raw);
    if (value !== null && typeof value === 'object' && value.$$placeholder !== undefined) {
      throw new NotImplementedError(`runner: uriOptions.${key} placeholder (credentials) not available`);
    }
    // Any key given here replaces the same key in the base URI (case-insensitively).
    for (const existing of [...url.searchParams.keys()]) {
      if (existing.toLowerCase() === key.toLowerCase()) url.searchParams.delete(existing);
    }
    if (key === 'directConnection' && value === true) {
      url.searchParams.delete('replicaSet');
    }
    if (key === 'readPreferenceTags' && Array.isArray(value)) {
      for (const tags of value) url.searchParams.append(key, String(tags));
    } else if (value !== null && typeof value === 'object') {
      url.searchParams.set(key, Object.entries(value).map(([k, v]) => `${k}:${v}`).join(','));
    } else {
      url.searchParams.set(key, String(value));
    }
  }
  return url.toString();
}

function readPreferenceFrom(spec) {
  if (spec == null) return undefined;
  if (spec instanceof ReadPreference) return spec;
  const rp = toNative(spec);
  return new ReadPreference(rp.mode, rp.tagSets, {
    maxStalenessSeconds: rp.maxStalenessSeconds,
    hedge: rp.hedge,
  });
}

// collectionOrDatabaseOptions -> Node driver options.
function collectionOrDatabaseOptions(spec = {}) {
  const out = {};
  for (const [key, value] of Object.entries(spec)) {
    if (key === 'readPreference') out.readPreference = readPreferenceFrom(value);
    else out[key] = toNative(value);
  }
  return out;
}

// A client entity: the MongoClient plus the events it has recorded.
class ClientEntity {
  constructor(id, spec, runner) {
    this.id = id;
    this.spec = spec;
    this.observe = new Set(spec.observeEvents || []);
    this.ignoreCommands = new Set((spec.ignoreCommandMonitoringEvents || []));
    this.observeSensitive = spec.observeSensitiveCommands === true;
    this.events = []; // { name, type, event }
    this.capturing = true;
    this.checkedOut = 0;
    this.waiters = [];
    const uriOptions = { ...(spec.uriOptions || {}) };
    const options = {
      monitorCommands: true,
      serverSelectionTimeoutMS: runner.serverSelectionTimeoutMS,
      // connect() would otherwise check a connection out and in, and CMAP assertions expect
      // the first connection to appear during the first operation.
      __skipPingOnConnect: true,
    };
    if (runner.usesFailPoints && !('heartbeatFrequencyMS' in uriOptions)) {
      options.heartbeatFrequencyMS = 500;
      options.minHeartbeatFrequencyMS = 50;
    }
    if (spec.serverApi) {
      const api = toNative(spec.serverApi);
      options.serverApi = {
        version: api.version,
        strict: api.strict,
        deprecationErrors: api.deprecationErrors,
      };
    }
    if (spec.autoEncryptOpts) throw new NotImplementedError('CSFLE: autoEncryptOpts not available');
    if (spec.observeLogMessages) {
      throw new NotImplementedError('runner: observeLogMessages not implemented');
    }
    this.uri = buildUri(runner.uri, uriOptions);
    this.client = new MongoClient(this.uri, options);
    for (const [driverName, [name, type]] of Object.entries(kEventNames)) {
      this.client.on(driverName, (event) => this.record(name, type, event));
    }
  }

  record(name, type, event) {
    if (name === 'connectionCheckedOutEvent') this.checkedOut++;
    if (name === 'connectionCheckedInEvent') this.checkedOut--;
    if (!this.capturing || !this.observe.has(name)) return;
    if (type === 'command') {
      if (this.ignoreCommands.has(event.commandName)) return;
      if (event.commandName === 'configureFailPoint') return;
      if (!this.observeSensitive && isSensitive(event)) return;
    }
    this.events.push({ name, type, event });
    for (const waiter of this.waiters) waiter();
  }

  eventsOfType(type) {
    return this.events.filter((e) => e.type === type);
  }

  commandStartedEvents() {
    return this.events.filter((e) => e.name === 'commandStartedEvent').map((e) => e.event);
  }

  // Resolves when `predicate()` becomes true or rejects after `timeoutMs`.
  waitUntil(predicate, timeoutMs, what) {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = () => {
        if (predicate()) {
          clearTimeout(timer);
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve();
        }
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  async close() {
    this.capturing = false;
    try {
      await this.client.close();
    } catch (_) {
      // Closing is best effort.
    }
  }
}

// Maps entity names to { type, value }.
//   types: client, database, collection, session, bucket, thread, cursor, changeStream,
//          topologyDescription, bson
class EntityMap {
  constructor() {
    this.map = new Map();
    this.lsids = new Map();
  }

  set(id, type, value) {
    if (this.map.has(id)) throw new EntityError(`entity "${id}" already exists`);
    this.map.set(id, { type, value });
  }

  has(id) {
    return this.map.has(id);
  }

  entry(id) {
    const e = this.map.get(id);
    if (!e) throw new EntityError(`entity "${id}" is not defined`);
    return e;
  }

  get(id, type) {
    const e = this.entry(id);
    if (type !== undefined && e.type !== type) {
      throw new EntityError(`entity "${id}" is a ${e.type}, not a ${type}`);
    }
    return e.value;
  }

  sessionLsid(id) {
    if (this.lsids.has(id)) return this.lsids.get(id);
    const session = this.get(id, 'session');
    const lsid = session.id;
    this.lsids.set(id, lsid);
    return lsid;
  }

  clients() {
    return [...this.map.values()].filter((e) => e.type === 'client').map((e) => e.value);
  }

  // Ends sessions, closes cursors and change streams, closes clients (in that order).
  async close() {
    const entries = [...this.map.values()];
    for (const e of entries) {
      if (e.type === 'client') e.value.capturing = false;
    }
    for (const e of entries) {
      try {
        if (e.type === 'cursor' || e.type === 'changeStream') await e.value.close();
      } catch (_) { /* best effort */ }
    }
    for (const e of entries) {
      try {
        if (e.type === 'session') await e.value.endSession();
      } catch (_) { /* best effort */ }
    }
    await Promise.all(entries.filter((e) => e.type === 'client').map((e) => e.value.close()));
    this.map.clear();
  }
}

// Creates the entities listed in `specs` (createEntities) into `entities`.
async function createEntities(specs, entities, runner) {
  for (const spec of specs) {
    const keys = Object.keys(spec);
    if (keys.length !== 1) throw new EntityError(`entity must have one key, got ${keys.join(',')}`);
    const type = keys[0];
    const def = spec[type];
    switch (type) {
      case 'client': {
        const client = new ClientEntity(def.id, def, runner);
        entities.set(def.id, 'client', client);
        // connect() selects a server with the client's read preference; a single-member replica
        // set has no secondary, so connect through the primary (operations keep their own).
        const saved = client.client.options.readPreference;
        client.client.options.readPreference = ReadPreference.primary;
        try {
          await client.client.connect();
        } finally {
          client.client.options.readPreference = saved;
        }
        if (def.awaitMinPoolSizeMS !== undefined) {
          // The driver fills minPoolSize in the background; give it the allowed time.
          await new Promise((r) => setTimeout(r, Math.min(Number(def.awaitMinPoolSizeMS), 2000)));
          client.events.length = 0;
        }
        break;
      }
      case 'database': {
        const client = entities.get(def.client, 'client');
        const db = client.client.db(def.databaseName, collectionOrDatabaseOptions(def.databaseOptions));
        db.unifiedClient = client;
        entities.set(def.id, 'database', db);
        break;
      }
      case 'collection': {
        const db = entities.get(def.database, 'database');
        const coll = db.collection(def.collectionName,
          collectionOrDatabaseOptions(def.collectionOptions));
        entities.set(def.id, 'collection', coll);
        break;
      }
      case 'session': {
        const client = entities.get(def.client, 'client');
        const options = {};
        for (const [key, value] of Object.entries(def.sessionOptions || {})) {
          if (key === 'defaultTransactionOptions') {
            options.defaultTransactionOptions = collectionOrDatabaseOptions(value);
          } else if (key === 'snapshotTime') {
            options.snapshotTime = entities.get(value);
          } else {
            options[key] = toNative(value);
          }
        }
        const session = client.client.startSession(options);
        // mongodb 7.x takes no snapshotTime option (lib/sessions.js keeps the time of the
        // session's first snapshot read in this field, and sends it as atClusterTime): set the
        // field as a driver that takes the option does.
        if (options.snapshotTime !== undefined) session.snapshotTime = options.snapshotTime;
        session.unifiedClient = client;
        entities.set(def.id, 'session', session);
        entities.sessionLsid(def.id);
        break;
      }
      case 'bucket': {
        const db = entities.get(def.database, 'database');
        const options = collectionOrDatabaseOptions(def.bucketOptions || {});
        entities.set(def.id, 'bucket', new GridFSBucket(db, options));
        break;
      }
      case 'thread':
        entities.set(def.id, 'thread', { chain: Promise.resolve(), error: null });
        break;
      case 'clientEncryption':
        throw new NotImplementedError('CSFLE: clientEncryption entities not available');
      default:
        throw new EntityError(`unknown entity type "${type}"`);
    }
  }
}

module.exports = {
  EntityMap,
  ClientEntity,
  EntityError,
  NotImplementedError,
  createEntities,
  buildUri,
  readPreferenceFrom,
  collectionOrDatabaseOptions,
  isSensitive,
  kEventNames,
};
