#!/usr/bin/env node
// Change stream benchmark against a running server (Quarry or mongod), with the Node.js driver:
//   (a) latency: insertOne acknowledged -> the event reaches a watcher in this process;
//   (b) fan-out: W watchers on one collection each must see all M inserts, once, in order,
//       while the server's thread count is sampled from /proc/<pid>/status;
//   (c) write throughput with 0 and with 10 watchers open (the watchers in a child process).
// Usage: node bench/changestream_latency/changestream_latency.js --uri URI [--pid QUARRYD_PID]
//          [--events 10000] [--watchers 100] [--inserts 50000] [--batch 1000]
//          [--throughput-docs 50000] [--throughput-batch 100] [--throughput-watchers 10]
//          [--parts latency,fanout,throughput] [--db cs_bench]
'use strict';

const fs = require('fs');
const path = require('path');
const { fork } = require('child_process');
const { MongoClient } = require(path.join(__dirname, '..', '..', 'node_modules', 'mongodb'));

const AWAIT_MS = 1000;
const STALL_MS = 30000;  // a fan-out watcher with no event for this long has lost the rest

function parseArgs(argv) {
  const args = {
    uri: 'mongodb://127.0.0.1:27017', pid: 0, events: 10000, watchers: 100, inserts: 50000,
    batch: 1000, 'throughput-docs': 50000, 'throughput-batch': 100, 'throughput-watchers': 10,
    parts: 'latency,fanout,throughput', db: 'cs_bench',
  };
  for (let i = 2; i < argv.length; i++) {
    const name = argv[i].replace(/^--/, '');
    if (!(name in args) || i + 1 >= argv.length) {
      console.error(`changestream_latency: unknown or incomplete option ${argv[i]}`);
      process.exit(2);
    }
    const value = argv[++i];
    args[name] = typeof args[name] === 'number' ? Number(value) : value;
    if (Number.isNaN(args[name])) {
      console.error(`changestream_latency: ${argv[i - 1]} needs a number`);
      process.exit(2);
    }
  }
  args.parts = args.parts.split(',');
  return args;
}

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function threadCount(pid) {
  if (!pid) return null;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^Threads:\s+(\d+)/m.exec(status);
    return match ? Number(match[1]) : null;
  } catch (e) {
    return null;
  }
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}

// Opens `count` watchers. Returns them with a promise that resolves once every one has seen a
// marker document (the Node driver sends the aggregate lazily, so until then the first
// inserts could precede a stream).
function startWatchers(coll, count, onChange) {
  const watchers = [];
  const seenMarker = [];
  for (let w = 0; w < count; w++) {
    const stream = coll.watch([], { maxAwaitTimeMS: AWAIT_MS });
    let resolveMarker;
    seenMarker.push(new Promise((resolve) => { resolveMarker = resolve; }));
    stream.on('change', (event) => {
      if (event.fullDocument && event.fullDocument.marker) {
        resolveMarker();
        return;
      }
      onChange(w, event);
    });
    stream.on('error', (error) => {
      if (!stream.closed) console.error(`watcher ${w}: ${error.message}`);
    });
    watchers.push(stream);
  }
  return { watchers, live: Promise.all(seenMarker) };
}

// Inserts markers into `coll` until `live` resolves: a stream opened after a marker misses it.
async function insertMarkersUntil(coll, live) {
  let done = false;
  const all = live.then(() => { done = true; });
  for (let i = 0; !done; i++) {
    await coll.insertOne({ marker: true, n: i });
    await Promise.race([all, sleep(200)]);
  }
}

async function openWatchers(coll, count, onChange) {
  const { watchers, live } = startWatchers(coll, count, onChange);
  await insertMarkersUntil(coll, live);
  return watchers;
}

async function closeAll(watchers) {
  await Promise.all(watchers.map((w) => w.close().catch(() => {})));
}

async function latencyPart(args, client, watchClient) {
  const coll = client.db(args.db).collection('latency');
  await coll.drop().catch(() => {});
  const ackAt = new Array(args.events);
  const eventAt = new Array(args.events);
  let waiting = null;  // resolves when event i arrives
  const watchers = await openWatchers(watchClient.db(args.db).collection('latency'), 1,
    (w, event) => {
      const i = event.fullDocument.i;
      eventAt[i] = nowMs();
      if (waiting && waiting.i === i) waiting.resolve();
    });
  const started = nowMs();
  for (let i = 0; i < args.events; i++) {
    const arrived = new Promise((resolve) => { waiting = { i, resolve }; });
    await coll.insertOne({ i, payload: 'x'.repeat(100) });
    ackAt[i] = nowMs();
    if (eventAt[i] === undefined) {
      await Promise.race([arrived, sleep(5000)]);
    }
  }
  const seconds = (nowMs() - started) / 1000;
  await closeAll(watchers);
  const latencies = [];
  let missing = 0;
  for (let i = 0; i < args.events; i++) {
    if (eventAt[i] === undefined) missing++;
    else latencies.push(eventAt[i] - ackAt[i]);
  }
  latencies.sort((a, b) => a - b);
  const fmt = (v) => v.toFixed(3);
  return {
    events: args.events, missing, seconds: seconds.toFixed(1),
    p50: fmt(percentile(latencies, 50)), p90: fmt(percentile(latencies, 90)),
    p99: fmt(percentile(latencies, 99)), max: fmt(latencies[latencies.length - 1] ?? NaN),
    before_ack: latencies.filter((v) => v < 0).length,
  };
}

async function fanoutPart(args, client, watchClient) {
  const coll = client.db(args.db).collection('fanout');
  await coll.drop().catch(() => {});
  await coll.insertOne({ create: true });
  const threadsBefore = threadCount(args.pid);
  const next = new Array(args.watchers).fill(0);
  const duplicates = new Array(args.watchers).fill(0);
  const outOfOrder = new Array(args.watchers).fill(0);
  let lastEventAt = nowMs();
  let delivered = 0;
  const watchers = await openWatchers(watchClient.db(args.db).collection('fanout'),
    args.watchers, (w, event) => {
      const i = event.fullDocument.i;
      lastEventAt = nowMs();
      delivered++;
      if (i === next[w]) next[w]++;
      else if (i < next[w]) duplicates[w]++;
      else { outOfOrder[w]++; next[w] = i + 1; }
    });
  const threadsOpen = threadCount(args.pid);
  let threadsMax = threadsOpen;
  const sampler = setInterval(() => {
    const t = threadCount(args.pid);
    if (t !== null && t > threadsMax) threadsMax = t;
  }, 100);
  const started = nowMs();
  for (let start = 0; start < args.inserts; start += args.batch) {
    const docs = [];
    for (let i = start; i < Math.min(args.inserts, start + args.batch); i++) docs.push({ i });
    await coll.insertMany(docs, { ordered: true });
  }
  const insertSeconds = (nowMs() - started) / 1000;
  lastEventAt = nowMs();
  while (next.some((n) => n < args.inserts) && nowMs() - lastEventAt < STALL_MS) {
    await sleep(50);
  }
  const deliverSeconds = (nowMs() - started) / 1000;
  clearInterval(sampler);
  await closeAll(watchers);
  const lost = next.reduce((sum, n) => sum + (args.inserts - n), 0);
  return {
    watchers: args.watchers, inserts: args.inserts, delivered,
    complete_watchers: next.filter((n) => n === args.inserts).length,
    lost, duplicates: duplicates.reduce((a, b) => a + b, 0),
    out_of_order: outOfOrder.reduce((a, b) => a + b, 0),
    insert_seconds: insertSeconds.toFixed(1), deliver_seconds: deliverSeconds.toFixed(1),
    events_per_second: Math.round(delivered / deliverSeconds),
    threads_before: threadsBefore, threads_open: threadsOpen, threads_max_during: threadsMax,
  };
}

// Server CPU seconds (user + system) from /proc/<pid>/stat, or null without --pid.
function serverCpuSeconds(pid) {
  if (!pid) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;  // utime, stime in clock ticks
  } catch (e) {
    return null;
  }
}

// The throughput round's watchers run in a child process, so that decoding their events does
// not slow this process's writer down (the measurement is of the server).
function startChildWatchers(args, collName, count) {
  const child = fork(__filename, [], {
    env: { ...process.env, CS_BENCH_CHILD: JSON.stringify({ uri: args.uri, db: args.db,
                                                            coll: collName, count }) },
  });
  const live = new Promise((resolve, reject) => {
    child.once('message', (m) => (m.live ? resolve() : reject(new Error('child failed'))));
    child.once('exit', () => reject(new Error('watcher process exited')));
  });
  const stop = () => new Promise((resolve) => {
    child.once('message', (m) => resolve(m.received));
    child.send({ stop: true });
  });
  return { live, stop };
}

async function childMain(config) {
  const client = new MongoClient(config.uri, { maxPoolSize: config.count + 10 });
  await client.connect();
  let received = 0;
  const { watchers, live } = startWatchers(client.db(config.db).collection(config.coll),
                                           config.count, () => { received++; });
  await live;
  process.send({ live: true });
  process.on('message', async () => {
    await closeAll(watchers);
    await client.close();
    process.send({ received }, () => process.exit(0));
  });
}

async function throughputRound(args, client, watcherCount) {
  const name = `throughput_${watcherCount}`;
  const coll = client.db(args.db).collection(name);
  await coll.drop().catch(() => {});
  await coll.insertOne({ create: true });
  let stopWatchers = async () => 0;
  if (watcherCount > 0) {
    const child = startChildWatchers(args, name, watcherCount);
    await insertMarkersUntil(coll, child.live);
    stopWatchers = child.stop;
  }
  const cpuBefore = serverCpuSeconds(args.pid);
  const started = nowMs();
  for (let start = 0; start < args['throughput-docs']; start += args['throughput-batch']) {
    const docs = [];
    const end = Math.min(args['throughput-docs'], start + args['throughput-batch']);
    for (let i = start; i < end; i++) docs.push({ i, payload: 'x'.repeat(100) });
    await coll.insertMany(docs, { ordered: true });
  }
  const seconds = (nowMs() - started) / 1000;
  const cpuAfter = serverCpuSeconds(args.pid);
  const received = await stopWatchers();
  return { watchers: watcherCount, documents: args['throughput-docs'], seconds,
           docs_per_second: args['throughput-docs'] / seconds, events_received: received,
           server_cpu_seconds: cpuBefore === null ? 'n/a' : (cpuAfter - cpuBefore).toFixed(2) };
}

function printTable(title, rows) {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  const cells = rows.map((r) => columns.map((c) => String(r[c])));
  const widths = columns.map((c, k) => Math.max(c.length, ...cells.map((r) => r[k].length)));
  const line = (values) => values.map((v, k) => v.padStart(widths[k])).join('  ');
  console.log(`\n${title}`);
  console.log(line(columns));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of cells) console.log(line(r));
}

async function main() {
  const args = parseArgs(process.argv);
  const options = { serverSelectionTimeoutMS: 5000 };
  const client = new MongoClient(args.uri, options);
  // Watchers get their own pool, big enough that every awaited getMore has a connection.
  const watchClient = new MongoClient(args.uri, {
    ...options, maxPoolSize: Math.max(args.watchers, args['throughput-watchers']) + 10,
  });
  await client.connect();
  await watchClient.connect();
  try {
    if (args.parts.includes('latency')) {
      const r = await latencyPart(args, client, watchClient);
      printTable('(a) latency, insertOne acknowledged -> event at the watcher (ms)', [r]);
    }
    if (args.parts.includes('fanout')) {
      const r = await fanoutPart(args, client, watchClient);
      printTable('(b) fan-out: every watcher must see every insert once, in order', [r]);
    }
    if (args.parts.includes('throughput')) {
      const none = await throughputRound(args, client, 0);
      const some = await throughputRound(args, client, args['throughput-watchers']);
      const rows = [none, some].map((r) => ({
        watchers: r.watchers, documents: r.documents, seconds: r.seconds.toFixed(2),
        'docs/s': Math.round(r.docs_per_second),
        'vs none %': ((100 * r.docs_per_second) / none.docs_per_second).toFixed(1),
        server_cpu_s: r.server_cpu_seconds, events_received_by_end: r.events_received,
      }));
      printTable(`(c) write throughput, insertMany batches of ${args['throughput-batch']}`, rows);
    }
  } finally {
    await watchClient.close();
    await client.close();
  }
}

const childConfig = process.env.CS_BENCH_CHILD;
(childConfig ? childMain(JSON.parse(childConfig)) : main()).catch((error) => {
  console.error(`changestream_latency: ${error.message}`);
  process.exit(1);
});
