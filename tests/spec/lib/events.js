'use strict';
// expectEvents and the event assertions of waitForEvent / assertEventCount.

const { match, MatchError, describe } = require('./match');

// Throws MatchError unless the recorded event `actual` ({ name, event }) matches `expected`
// (an expectedEvent object with exactly one key).
function matchEvent(expected, actual, ctx, path) {
  const keys = Object.keys(expected);
  if (keys.length !== 1) throw new MatchError(path, `expected event must have one key, got ${keys}`);
  const name = keys[0];
  const spec = expected[name] || {};
  if (actual.name !== name) {
    throw new MatchError(path, `expected ${name}, got ${actual.name}` +
      (actual.event.commandName ? ` (${actual.event.commandName})` : ''));
  }
  const ev = actual.event;
  for (const [key, value] of Object.entries(spec)) {
    const p = `${path}.${name}.${key}`;
    switch (key) {
      case 'command':
        match(value, ev.command, ctx, true, `${path}.command`);
        break;
      case 'reply':
        match(value, ev.reply, ctx, true, `${path}.reply`);
        break;
      case 'commandName':
      case 'databaseName':
        if (ev[key] !== value) {
          throw new MatchError(p, `expected ${value}, got ${ev[key]}` +
            (key === 'databaseName' ? ` (command ${ev.commandName})` : ''));
        }
        break;
      case 'hasServiceId': {
        const has = ev.serviceId != null && ev.serviceId.toHexString() !== '000000000000000000000000';
        if (has !== value) throw new MatchError(p, `expected ${value}, got ${has}`);
        break;
      }
      case 'hasServerConnectionId': {
        const id = ev.serverConnectionId;
        const has = id != null && Number(id) > 0;
        if (has !== value) throw new MatchError(p, `expected ${value}, got ${has}`);
        break;
      }
      case 'interruptInUseConnections':
        if (ev.interruptInUseConnections !== value) {
          throw new MatchError(p, `expected ${value}, got ${ev.interruptInUseConnections}`);
        }
        break;
      case 'reason':
        if (ev.reason !== value) throw new MatchError(p, `expected ${value}, got ${ev.reason}`);
        break;
      case 'awaited':
        if (ev.awaited !== value) throw new MatchError(p, `expected ${value}, got ${ev.awaited}`);
        break;
      case 'previousDescription':
      case 'newDescription':
        for (const [field, want] of Object.entries(value)) {
          const got = ev[key] ? ev[key][field] : undefined;
          if (got !== want) throw new MatchError(`${p}.${field}`, `expected ${want}, got ${got}`);
        }
        break;
      default:
        throw new MatchError(p, `unsupported event assertion "${key}"`);
    }
  }
}

function eventMatches(expected, actual, ctx) {
  try {
    matchEvent(expected, actual, ctx, '');
    return true;
  } catch (e) {
    if (e instanceof MatchError) return false;
    throw e;
  }
}

function summarize(recorded) {
  return recorded.map((e) => e.event.commandName ? `${e.name}(${e.event.commandName})` : e.name)
    .join(', ');
}

// Checks one expectedEventsForClient against the events the client recorded.
function checkExpectedEvents(spec, client, ctx) {
  const type = spec.eventType || 'command';
  const actual = client.eventsOfType(type);
  const expected = spec.events;
  const where = `expectEvents[${spec.client}]`;
  if (spec.ignoreExtraEvents ? actual.length < expected.length : actual.length !== expected.length) {
    throw new MatchError(where, `expected ${expected.length} ${type} events` +
      `${spec.ignoreExtraEvents ? ' (or more)' : ''}, got ${actual.length}: [${summarize(actual)}]`);
  }
  expected.forEach((e, i) => {
    try {
      matchEvent(e, actual[i], ctx, `event ${i}`);
    } catch (err) {
      if (err instanceof MatchError) {
        const got = actual[i].event.command ?? actual[i].event.reply;
        throw new MatchError(where, `${err.message}` +
          (got ? ` — actual ${actual[i].event.commandName}: ${describe(got)}` : ''));
      }
      throw err;
    }
  });
}

module.exports = { matchEvent, eventMatches, checkExpectedEvents };
