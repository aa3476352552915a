#!/usr/bin/env node
'use strict';
// Runs MongoDB's unified-format spec tests (../shared/spec-tests) against a fresh quarryd.
//
//   node tests/spec/run.js [--folder crud] [--filter text] [--update-baseline] [--verbose]
//                          [--timeout ms] [--uri mongodb://...] [--keep-log]
//
// Environment: QUARRY_BINARY (server binary), QUARRY_SPEC_TESTS (test folder),
// QUARRY_SPEC_URI (use an already running server instead of starting one).
// Writes tests/spec/results.json. Exits non-zero only when a test listed in
// tests/spec/baseline.json fails (or when the run itself cannot start).

const fs = require('fs');
const path = require('path');
const { QuarryServer, findBinary } = require('./lib/server');
const { Runner, discoverServer, findTestFiles } = require('./lib/runner');
const report = require('./lib/report');
const { describeError } = require('./lib/errors');

const kRepoRoot = path.resolve(__dirname, '..', '..');
const kResultsFile = path.join(__dirname, 'results.json');
const kBaselineFile = path.join(__dirname, 'baseline.json');

function parseArgs(argv) {
  const opts = { folders: [], filter: null, updateBaseline: false, verbose: false,
    timeoutMs: 30000, uri: process.env.QUARRY_SPEC_URI || null, keepLog: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--folder') opts.folders.push(...value().split(','));
    else if (a === '--filter') opts.filter = value();
    else if (a === '--update-baseline') opts.updateBaseline = true;
    else if (a === '--verbose' || a === '-v') opts.verbose = true;
    else if (a === '--timeout') opts.timeoutMs = Number(value());
    else if (a === '--uri') opts.uri = value();
    else if (a === '--keep-log') opts.keepLog = true;
    else if (a === '--help' || a === '-h') opts.help = true;
    else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

function inFolders(opts, fileInfo) {
  return opts.folders.length === 0 ||
    opts.folders.some((f) => fileInfo.folder === f || fileInfo.folder.startsWith(`${f}/`) ||
      fileInfo.rel.startsWith(`${f}/`));
}

function selected(opts) {
  const filter = opts.filter ? opts.filter.toLowerCase() : null;
  return (id, fileInfo) => inFolders(opts, fileInfo) && (!filter || id.toLowerCase().includes(filter));
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) {
    console.log(fs.readFileSync(__filename, 'utf8').split('\n').slice(2, 12).join('\n'));
    return 0;
  }
  const specRoot = process.env.QUARRY_SPEC_TESTS ||
    path.resolve(kRepoRoot, '..', 'shared', 'spec-tests');
  if (!fs.existsSync(specRoot)) {
    console.log(`spec tests skipped: folder ${specRoot} not found (set QUARRY_SPEC_TESTS to run them)`);
    return 0;
  }
  const baseline = report.readBaseline(kBaselineFile);
  const want = selected(opts);
  const files = findTestFiles(specRoot).filter((f) => inFolders(opts, f));
  if (files.length === 0) {
    console.log(`spec tests: no test files selected under ${specRoot}`);
    return 0;
  }

  let server = null;
  let uri = opts.uri;
  if (!uri) {
    const binary = findBinary(kRepoRoot);
    if (!binary) {
      console.log('spec tests skipped: no quarryd binary (set QUARRY_BINARY or build ' +
        `${path.join(kRepoRoot, 'build', 'src', 'main', 'quarryd')})`);
      return baseline.length > 0 ? 1 : 0;
    }
    server = new QuarryServer(binary);
    const stopOnSignal = async () => {
      await server.stop();
      server.cleanup({ keepLog: true });
      process.exit(130);
    };
    process.once('SIGINT', stopOnSignal);
    process.once('SIGTERM', stopOnSignal);
    await server.start();
    uri = `mongodb://127.0.0.1:${server.port}/`;
    console.log(`quarryd ${binary} pid ${server.child.pid} port ${server.port} args ${server.args.join(' ')}`);
  }

  const results = [];
  const crashes = [];
  let runner = null;
  try {
    const facts = await discoverServer(uri);
    console.log(`server: version ${facts.version}, topology ${facts.topology}, ` +
      `failCommand ${facts.failPointsSupported ? 'available' : `unavailable (${facts.failPointsReason})`}, ` +
      `uri ${facts.uri}`);
    for (const w of facts.warnings) console.log(`warning: ${w}`);
    runner = new Runner({ facts, timeoutMs: opts.timeoutMs });
    await runner.killAllSessions();
    const onResult = async (r, fileInfo, counts) => {
      if (server && server.alive && r.status === 'failed' && /timed out/.test(r.reason || '') &&
          !(await runner.responsive())) {
        console.log(`!! quarryd does not answer ping after "${r.id}"; killing it`);
        server.child.kill('SIGKILL');
        await new Promise((resolve) => setTimeout(resolve, 500));
        server.exitInfo = server.exitInfo || { signal: 'SIGKILL', hung: true };
      }
      if (server && !server.alive) {
        const exit = JSON.stringify(server.exitInfo);
        crashes.push({ test: r.id, exit, log: server.logTail(30) });
        r.status = 'failed';
        r.reason = `server crashed (${exit}) during this test${r.reason ? `; ${r.reason}` : ''}`;
        console.log(`!! quarryd crashed during "${r.id}" ${exit}; restarting\n${server.logTail(10)}`);
        await server.start();
      }
      const entry = { id: r.id, folder: fileInfo.folder, file: fileInfo.rel,
        description: r.description, status: r.status, ms: r.ms };
      if (r.reason) entry.reason = r.reason;
      if (r.status === 'failed') entry.cause = r.reason.startsWith('server crashed')
        ? 'server crashed' : report.failureCause(r.reason);
      results.push(entry);
      counts[r.status]++;
      if (opts.verbose || r.status === 'failed') {
        const mark = { passed: 'ok  ', failed: 'FAIL', skipped: 'skip' }[r.status];
        console.log(`  ${mark} ${r.id}${r.reason && (opts.verbose || r.status === 'failed')
          ? ` — ${r.reason}` : ''}`);
      }
    };
    for (const fileInfo of files) {
      const counts = { passed: 0, failed: 0, skipped: 0 };
      await runner.runFile(fileInfo, {
        filter: want,
        onResult: (r) => onResult(r, fileInfo, counts),
      });
      const total = counts.passed + counts.failed + counts.skipped;
      if (total > 0) {
        console.log(`${fileInfo.rel}: ${counts.passed} passed, ${counts.failed} failed, ` +
          `${counts.skipped} skipped`);
      }
    }
  } finally {
    if (runner) await runner.close();
    if (server) {
      await server.stop();
      server.cleanup({ keepLog: opts.keepLog || crashes.length > 0 });
      if (opts.keepLog || crashes.length > 0) console.log(`quarryd log kept at ${server.logFile}`);
    }
  }

  const summary = report.summarize(results);
  const failureGroups = report.groupBy(results, 'failed', (r) => r.cause);
  const skipGroups = report.groupBy(results, 'skipped', (r) => r.reason);
  fs.writeFileSync(kResultsFile, `${JSON.stringify({
    date: new Date().toISOString(),
    specTests: specRoot,
    server: server ? { binary: server.binary, args: server.args } : { uri },
    summary,
    failureCauses: failureGroups,
    skipReasons: skipGroups,
    crashes,
    tests: results,
  }, null, 2)}\n`);

  console.log('');
  console.log(report.table(summary));
  if (failureGroups.length > 0) {
    console.log('\nmost common failure causes:');
    for (const g of failureGroups.slice(0, 20)) console.log(`  ${String(g.count).padStart(4)}  ${g.cause}`);
  }
  if (skipGroups.length > 0) {
    console.log('\nskip reasons:');
    for (const g of skipGroups.slice(0, 20)) console.log(`  ${String(g.count).padStart(4)}  ${g.cause}`);
  }
  console.log(`\nresults: ${path.relative(process.cwd(), kResultsFile)}`);

  if (opts.updateBaseline) {
    const next = report.updatedBaseline(baseline, results);
    fs.writeFileSync(kBaselineFile, `${JSON.stringify(next, null, 2)}\n`);
    console.log(`baseline: ${next.length} tests written to ${path.relative(process.cwd(), kBaselineFile)}`);
  }
  const regressed = report.regressions(baseline, results);
  if (regressed.length > 0) {
    console.log(`\n${regressed.length} baseline test(s) failed:`);
    for (const id of regressed) console.log(`  ${id}`);
  }
  const t = summary.totals;
  console.log(`${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped`);
  return regressed.length > 0 ? 1 : 0;
}

process.on('unhandledRejection', (e) => {
  // A cursor or thread of a finished test may still reject; it must not stop the run.
  if (process.env.QUARRY_SPEC_DEBUG) console.error('unhandled rejection:', describeError(e));
});

main().then((code) => {
  process.exitCode = code;
}, (e) => {
  console.error(`spec runner error: ${e && e.stack ? e.stack : e}`);
  process.exitCode = 2;
});
