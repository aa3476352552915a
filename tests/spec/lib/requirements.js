'use strict';
// runOnRequirements, schema versions and the other reasons a test is skipped before it runs.

const { compareNumbers, isNumeric, exactEqual } = require('./match');

// The newest schema version this runner understands (files with 1.x <= this are accepted).
const kSupportedSchemaVersion = '1.23';

// "4.9.0-alpha4-271-g7d5cf02" -> [4, 9, 0]; missing components are 0.
function parseVersion(s) {
  const parts = String(s).split('-')[0].split('.').map((p) => parseInt(p, 10) || 0);
  while (parts.length < 3) parts.push(0);
  return parts.slice(0, 3);
}

function compareVersions(a, b) {
  const x = parseVersion(a);
  const y = parseVersion(b);
  for (let i = 0; i < 3; i++) {
    if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return 0;
}

function schemaVersionSupported(version, supported = kSupportedSchemaVersion) {
  const v = parseVersion(version);
  const s = parseVersion(supported);
  return v[0] === s[0] && compareVersions(version, supported) <= 0;
}

// Topology names a runOnRequirement may list that a server of `topology` satisfies.
function topologyMatches(required, topology) {
  if (required === topology) return true;
  // "sharded" accepts any sharded cluster; every modern shard is a replica set.
  if (topology === 'sharded-replicaset' && required === 'sharded') return true;
  if (topology === 'sharded' && required === 'sharded-replicaset') return true;
  return false;
}

// Why `req` is not satisfied by `server`, or null if it is.
//   server: { version, topology, serverless, auth, csfle, parameters(name) -> value|undefined }
// parameters may be async (getParameter); so this function is async.
async function unmetReason(req, server) {
  if (req.minServerVersion && compareVersions(server.version, req.minServerVersion) < 0) {
    return `requires server >= ${req.minServerVersion} (server is ${server.version})`;
  }
  if (req.maxServerVersion && compareVersions(server.version, req.maxServerVersion) > 0) {
    return `requires server <= ${req.maxServerVersion} (server is ${server.version})`;
  }
  if (req.topologies && !req.topologies.some((t) => topologyMatches(t, server.topology))) {
    return `requires topology ${req.topologies.join('|')} (server is ${server.topology})`;
  }
  if (req.serverless === 'require' && !server.serverless) return 'requires Atlas Serverless';
  if (req.serverless === 'forbid' && server.serverless) return 'forbids Atlas Serverless';
  if (req.auth === true && !server.auth) return 'requires authentication enabled';
  if (req.auth === false && server.auth) return 'requires authentication disabled';
  if (req.authMechanism) {
    if (!server.auth) return `requires auth mechanism ${req.authMechanism}`;
  }
  if (req.csfle !== undefined && req.csfle !== false && !server.csfle) {
    return 'requires CSFLE (libmongocrypt/mongodb-client-encryption not available)';
  }
  if (req.csfle === false && server.csfle) return 'requires CSFLE to be unavailable';
  if (req.serverParameters) {
    for (const [name, expected] of Object.entries(req.serverParameters)) {
      const actual = await server.parameter(name);
      const equal = actual !== undefined &&
        (isNumeric(expected) && isNumeric(actual)
          ? compareNumbers(expected, actual) === 0
          : exactEqual(expected, actual));
      if (!equal) {
        return `requires server parameter ${name}=${JSON.stringify(expected)} ` +
          `(server has ${actual === undefined ? 'none' : JSON.stringify(actual)})`;
      }
    }
  }
  return null;
}

// null if any requirement in the list is met (or the list is absent), else the reason.
async function requirementsSkipReason(list, server) {
  if (!list || list.length === 0) return null;
  const reasons = [];
  for (const req of list) {
    const reason = await unmetReason(req, server);
    if (reason === null) return null;
    reasons.push(reason);
  }
  return `runOnRequirements not met: ${[...new Set(reasons)].join('; or ')}`;
}

module.exports = {
  kSupportedSchemaVersion,
  parseVersion,
  compareVersions,
  schemaVersionSupported,
  topologyMatches,
  unmetReason,
  requirementsSkipReason,
};
