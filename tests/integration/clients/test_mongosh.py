"""mongosh 2.x against quarryd: `show dbs`, `show collections` and CRUD, with no errors and no
"Non-Genuine MongoDB" warning in its output; the error a shell user sees for an option Quarry
does not implement."""

import json
import os
import re
import subprocess

import pytest

from quarry_server import REPO_ROOT

MONGOSH = os.path.join(REPO_ROOT, "node_modules", ".bin", "mongosh")
BAD_OUTPUT = re.compile(r"error|non-genuine|exception|warning", re.IGNORECASE)


@pytest.fixture(scope="module")
def mongosh_home(tmp_path_factory):
    # A HOME of its own: mongosh writes logs and history there, not into the user's.
    return str(tmp_path_factory.mktemp("mongosh-home"))


def mongosh_process(server, mongosh_home, script, db="test", quiet=True, json_mode=None,
                    uri=None):
    """Runs mongosh --eval `script`; returns the finished subprocess.CompletedProcess."""
    if not os.access(MONGOSH, os.X_OK):
        pytest.fail(f"{MONGOSH} is missing: run `npm ci` (scripts/install-deps.sh)", pytrace=False)
    args = [MONGOSH, "--norc"]
    if quiet:
        args.append("--quiet")
    if json_mode:
        args.append(f"--json={json_mode}")
    args += [uri or f"mongodb://{server.host}:{server.port}/{db}", "--eval", script]
    env = dict(os.environ, HOME=mongosh_home, MONGOSH_NO_UPDATE_CHECK="1", NO_COLOR="1",
               FORCE_COLOR="0")
    return subprocess.run(args, capture_output=True, text=True, timeout=120, env=env,
                          stdin=subprocess.DEVNULL)


def run_mongosh(server, mongosh_home, script, db="test", quiet=True, json_mode=None, uri=None):
    """Runs mongosh --eval `script`, which must succeed without errors or warnings; returns
    its standard output."""
    proc = mongosh_process(server, mongosh_home, script, db, quiet, json_mode, uri)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"mongosh exited {proc.returncode}:\n{output}"
    bad = [line for line in output.splitlines() if BAD_OUTPUT.search(line)]
    assert not bad, "mongosh printed errors or warnings:\n" + "\n".join(bad)
    return proc.stdout


def test_show_dbs_lists_databases_with_sizes(server, client, mongosh_home):
    client.t_mongosh_dbs.c.insert_one({"x": 1})
    out = run_mongosh(server, mongosh_home, "show dbs")
    rows = dict(line.split(None, 1) for line in out.splitlines() if line.strip())
    assert "t_mongosh_dbs" in rows, out
    assert re.match(r"^\d+(\.\d+)? (B|KiB|MiB|GiB)$", rows["t_mongosh_dbs"].strip()), out
    client.drop_database("t_mongosh_dbs")


def test_show_collections_lists_names_one_per_line(server, client, mongosh_home):
    db = client.t_mongosh_colls
    for name in ("zeta", "alpha", "mid"):
        db[name].insert_one({"x": 1})
    out = run_mongosh(server, mongosh_home, "show collections", db="t_mongosh_colls")
    assert [line.strip() for line in out.splitlines() if line.strip()] == ["alpha", "mid", "zeta"]
    client.drop_database("t_mongosh_colls")


def test_insert_find_update_delete_round_trip(server, client, mongosh_home):
    script = """
      db.c.drop();
      const inserted = db.c.insertOne({_id: 1, name: "ann", n: 1});
      const many = db.c.insertMany([{_id: 2, n: 2}, {_id: 3, n: 3}]);
      const found = db.c.find({n: {$gte: 2}}).sort({n: -1}).toArray();
      const updated = db.c.updateOne({_id: 1}, {$set: {name: "bea"}, $inc: {n: 10}});
      const after = db.c.findOne({_id: 1});
      const deleted = db.c.deleteOne({_id: 2});
      const count = db.c.countDocuments({});
      const estimated = db.c.estimatedDocumentCount();
      ({inserted, many, found, updated, after, deleted, count, estimated})
    """
    out = run_mongosh(server, mongosh_home, script, db="t_mongosh_crud", json_mode="relaxed")
    got = json.loads(out)
    assert got["inserted"] == {"acknowledged": True, "insertedId": 1}
    assert got["many"]["insertedIds"] == {"0": 2, "1": 3}
    assert got["found"] == [{"_id": 3, "n": 3}, {"_id": 2, "n": 2}]
    assert got["updated"]["matchedCount"] == 1 and got["updated"]["modifiedCount"] == 1
    assert got["after"] == {"_id": 1, "name": "bea", "n": 11}
    assert got["deleted"]["deletedCount"] == 1
    assert got["count"] == 2 and got["estimated"] == 2
    assert client.t_mongosh_crud.c.find_one({"_id": 1})["name"] == "bea"
    client.drop_database("t_mongosh_crud")


def test_find_iterates_past_the_first_batch(server, client, mongosh_home):
    client.t_mongosh_many.c.insert_many([{"_id": i} for i in range(450)])
    out = run_mongosh(server, mongosh_home,
                      "db.c.find().toArray().map(d => d._id).reduce((a, b) => a + b, 0)",
                      db="t_mongosh_many")
    assert out.strip() == str(sum(range(450)))
    client.drop_database("t_mongosh_many")


def test_default_shell_output_prints_documents(server, client, mongosh_home):
    client.t_mongosh_print.c.insert_one({"_id": 7, "label": "seven"})
    out = run_mongosh(server, mongosh_home, "db.c.find()", db="t_mongosh_print")
    assert re.search(r"_id: 7,\s+label: 'seven'", out), out
    client.drop_database("t_mongosh_print")


def test_banner_has_no_non_genuine_warning(server, mongosh_home):
    # Without --quiet mongosh prints its greeting, where the Non-Genuine warning would appear.
    out = run_mongosh(server, mongosh_home, "db.version()", quiet=False)
    assert "7.0" in out


def test_replica_set_uri_with_zstd(server, mongosh_home):
    uri = f"mongodb://{server.host}:{server.port}/t_mongosh_rs?replicaSet=rs0&compressors=zstd"
    out = run_mongosh(server, mongosh_home,
                      "db.c.insertOne({_id: 1}); db.c.countDocuments({})", uri=uri)
    assert out.strip() == "1"
    run_mongosh(server, mongosh_home, "db.dropDatabase()", uri=uri)


def test_find_with_a_collation_from_the_shell(server, client, mongosh_home):
    # French at strength 1 ignores accents and case: the shell user's collation is applied.
    client.t_mongosh_collation.c.insert_many([{"_id": 1, "w": "côte"}, {"_id": 2, "w": "x"}])
    out = run_mongosh(server, mongosh_home,
                      "db.c.find({w: 'COTE'}).collation({locale: 'fr', strength: 1}).toArray().length",
                      db="t_mongosh_collation")
    assert out.strip() == "1", out
    client.drop_database("t_mongosh_collation")


def test_unique_index_and_explain_from_the_shell(server, client, mongosh_home):
    # The shell helpers a user types first: createIndex with unique, getIndexes, a duplicate
    # refused, and explain("executionStats") showing the index scan that answered the query.
    script = """
      db.orders.drop();
      db.orders.insertMany([{item: "abc", qty: 2}, {item: "xyz", qty: 5}, {item: "pqr", qty: 1}]);
      const name = db.orders.createIndex({item: 1}, {unique: true});
      const indexes = db.orders.getIndexes().map(i => ({name: i.name, unique: !!i.unique}));
      let duplicate = null;
      try { db.orders.insertOne({item: "abc"}); } catch (e) { duplicate = e.code; }
      const explained = db.orders.find({item: "xyz"}).explain("executionStats");
      const stats = explained.executionStats;
      ({name, indexes, duplicate, stage: explained.queryPlanner.winningPlan.stage,
        input: explained.queryPlanner.winningPlan.inputStage.stage,
        indexName: explained.queryPlanner.winningPlan.inputStage.indexName,
        nReturned: stats.nReturned, keys: stats.totalKeysExamined,
        docs: stats.totalDocsExamined})
    """
    out = run_mongosh(server, mongosh_home, script, db="t_mongosh_index", json_mode="relaxed")
    got = json.loads(out)
    assert got["name"] == "item_1"
    assert got["indexes"] == [{"name": "_id_", "unique": False},
                              {"name": "item_1", "unique": True}]
    assert got["duplicate"] == 11000
    assert (got["stage"], got["input"], got["indexName"]) == ("FETCH", "IXSCAN", "item_1")
    assert (got["nReturned"], got["keys"], got["docs"]) == (1, 1, 1)
    assert client.t_mongosh_index.orders.count_documents({}) == 3
    client.drop_database("t_mongosh_index")


def test_collection_default_collation_from_the_shell(server, client, mongosh_home):
    # A case-insensitive collection: its index inherits the collation, and a find for another
    # spelling reads it and finds the document.
    script = """
      db.c.drop();
      db.createCollection("c", {collation: {locale: "en", strength: 2}});
      db.c.insertMany([{name: "Alice"}, {name: "bob"}]);
      db.c.createIndex({name: 1});
      const explained = db.c.find({name: "ALICE"}).explain();
      ({found: db.c.find({name: "ALICE"}).toArray().map(d => d.name),
        strength: db.c.getIndexes()[1].collation.strength,
        input: explained.queryPlanner.winningPlan.inputStage.stage})
    """
    out = run_mongosh(server, mongosh_home, script, db="t_mongosh_coll_default",
                      json_mode="relaxed")
    got = json.loads(out)
    assert got == {"found": ["Alice"], "strength": 2, "input": "IXSCAN"}
    client.drop_database("t_mongosh_coll_default")


def test_create_view_and_read_it_from_the_shell(server, client, mongosh_home):
    # db.createView, then the helpers a shell user reads a view with; `show collections` lists
    # it and a write to it is refused with mongod's error.
    script = """
      db.orders.insertMany([{item: "a", qty: 5}, {item: "b", qty: 50}, {item: "c", qty: 70}]);
      db.createView("big_orders", "orders", [{$match: {qty: {$gte: 10}}}, {$project: {_id: 0}}]);
      let refused = null;
      try { db.big_orders.insertOne({item: "x", qty: 99}); } catch (e) { refused = e.code; }
      ({items: db.big_orders.find().sort({qty: 1}).toArray().map(d => d.item),
        count: db.big_orders.countDocuments(),
        distinct: db.big_orders.distinct("item"),
        infos: db.getCollectionInfos({type: "view"}).map(c => [c.name, c.options.viewOn]),
        names: db.getCollectionNames(),
        refused: refused})
    """
    out = run_mongosh(server, mongosh_home, script, db="t_mongosh_views", json_mode="relaxed")
    got = json.loads(out)
    assert got == {"items": ["b", "c"], "count": 2, "distinct": ["b", "c"],
                   "infos": [["big_orders", "orders"]],
                   "names": ["big_orders", "orders"], "refused": 166}
    client.drop_database("t_mongosh_views")


def test_capped_collection_from_the_shell(server, client, mongosh_home):
    # db.createCollection with capped, size and max; isCapped() and stats(); the oldest document
    # goes once max is reached, and find() reads in insertion order, not _id order.
    script = """
      const created = db.createCollection("log", {capped: true, size: 4096, max: 2});
      const plain = db.createCollection("plain");
      db.log.insertOne({_id: "c"});
      db.log.insertOne({_id: "a"});
      db.log.insertOne({_id: "b"});
      const stats = db.log.stats();
      ({created: created.ok, capped: db.log.isCapped(), plainCapped: db.plain.isCapped(),
        ids: db.log.find().toArray().map(d => d._id),
        reversed: db.log.find().sort({$natural: -1}).toArray().map(d => d._id),
        count: db.log.countDocuments(),
        options: db.getCollectionInfos({name: "log"})[0].options,
        stats: [stats.capped, stats.max, stats.maxSize]})
    """
    out = run_mongosh(server, mongosh_home, script, db="t_mongosh_capped", json_mode="relaxed")
    got = json.loads(out)
    assert got == {"created": 1, "capped": True, "plainCapped": False,
                   "ids": ["a", "b"], "reversed": ["b", "a"], "count": 2,
                   "options": {"capped": True, "size": 4096, "max": 2},
                   "stats": [True, 2, 4096]}
    client.drop_database("t_mongosh_capped")


def test_latency_stats_from_the_shell(server, client, mongosh_home):
    # mongosh's latencyStats() is $collStats with latencyStats.
    script = """
      db.c.insertOne({_id: 1});
      db.c.findOne({_id: 1});
      const stats = db.c.latencyStats({histograms: true})[0].latencyStats;
      ({writes: stats.writes.ops, reads: stats.reads.ops,
        buckets: stats.writes.histogram.reduce((n, b) => n + Number(b.count), 0)})
    """
    out = run_mongosh(server, mongosh_home, script, db="t_mongosh_latency", json_mode="relaxed")
    assert json.loads(out) == {"writes": 1, "reads": 1, "buckets": 1}
    client.drop_database("t_mongosh_latency")


def test_current_op_and_kill_op_from_the_shell(server, mongosh_home):
    # mongosh's db.currentOp() is an aggregation with {$currentOp: {..., truncateOps: false}} and
    # a $match of the filter it was given; it lists the shell's own aggregation.
    script = """
      printjson(db.currentOp());
      const own = db.currentOp({"command.aggregate": 1}).inprog;
      const all = db.currentOp(true).inprog;
      const killed = db.killOp(2000000000);
      const stage = Object.keys(own[0].command.pipeline[0])[0];
      print(JSON.stringify({own: own.length, ns: own[0].ns, stage, any: all.length > 0,
                            info: killed.info, ok: killed.ok}));
    """
    out = run_mongosh(server, mongosh_home, script)
    assert "inprog" in out and "currentOpTime" in out, out
    got = json.loads(out.strip().splitlines()[-1])
    assert got == {"own": 1, "ns": "admin.$cmd.aggregate", "stage": "$currentOp", "any": True,
                   "info": "attempting to kill op", "ok": 1}


def test_explain_of_aggregate_from_the_shell(server, client, mongosh_home):
    # db.c.explain().aggregate(...) and db.c.aggregate(..., {explain: true}) print mongod's
    # shapes: the plan at the top for a pipeline the query layer answers whole, else stages
    # led by $cursor, each with what it returned at executionStats verbosity.
    script = """
      db.sales.drop();
      db.sales.insertMany([{item: "a", qty: 2}, {item: "b", qty: 5}, {item: "a", qty: 1}]);
      db.sales.createIndex({item: 1});
      const whole = db.sales.explain().aggregate([{$match: {item: "a"}}]);
      const staged = db.sales.explain("executionStats").aggregate(
          [{$match: {item: "a"}}, {$group: {_id: "$item", total: {$sum: "$qty"}}}]);
      const option = db.sales.aggregate([{$match: {item: "b"}}, {$count: "n"}], {explain: true});
      ({whole: whole.queryPlanner.winningPlan.inputStage.indexName,
        staged: staged.stages.map(s => Object.keys(s)[0]),
        cursorReturned: staged.stages[0].nReturned, groupReturned: staged.stages[1].nReturned,
        option: option.stages[0].$cursor.queryPlanner.winningPlan.stage})
    """
    out = run_mongosh(server, mongosh_home, script, db="t_mongosh_agg_explain",
                      json_mode="relaxed")
    got = json.loads(out)
    assert got["whole"] == "item_1"
    assert got["staged"] == ["$cursor", "$group"]
    assert (got["cursorReturned"], got["groupReturned"]) == (2, 1)
    assert got["option"] == "FETCH"
    client.drop_database("t_mongosh_agg_explain")


def test_rs_status_and_conf_describe_the_one_member_set(server, mongosh_home):
    out = run_mongosh(server, mongosh_home,
                      "const s = rs.status(); const c = rs.conf();"
                      "print(JSON.stringify({set: s.set, state: s.members[0].stateStr,"
                      " self: s.members[0].self, conf: c._id, votes: c.members[0].votes,"
                      " host: c.members[0].host === db.hello().me}))")
    assert json.loads(out) == {"set": "rs0", "state": "PRIMARY", "self": True, "conf": "rs0",
                               "votes": 1, "host": True}


def test_replication_info_helpers(server, client, mongosh_home):
    client.t_mongosh_repl.c.insert_one({"x": 1})
    out = run_mongosh(server, mongosh_home,
                      "const r = db.getReplicationInfo();"
                      "print(JSON.stringify({size: r.logSizeMB > 0, used: r.usedMB >= 0,"
                      " diff: r.timeDiff >= 0}))")
    assert json.loads(out) == {"size": True, "used": True, "diff": True}
    out = run_mongosh(server, mongosh_home, "rs.printReplicationInfo()")
    assert "configured oplog size" in out and "log length start to end" in out
    run_mongosh(server, mongosh_home, "rs.printSecondaryReplicationInfo()")
    client.drop_database("t_mongosh_repl")


def test_show_dbs_lists_admin_config_local(server, mongosh_home):
    out = run_mongosh(server, mongosh_home, "show dbs")
    names = {line.split()[0] for line in out.splitlines() if line.strip()}
    assert {"admin", "config", "local"} <= names, out


def test_oplog_tail_from_the_shell(server, client, mongosh_home):
    out = run_mongosh(server, mongosh_home,
                      "const last = db.getSiblingDB('local').oplog.rs.find()"
                      ".sort({$natural: -1}).limit(1).next();"
                      "db.getSiblingDB('t_mongosh_tail').c.insertOne({_id: 7});"
                      "const e = db.getSiblingDB('local').oplog.rs"
                      ".find({ts: {$gt: last.ts}, ns: 't_mongosh_tail.c'}).next();"
                      "print(JSON.stringify({op: e.op, id: e.o._id}))")
    assert json.loads(out) == {"op": "i", "id": 7}
    client.drop_database("t_mongosh_tail")


def test_profiler_helpers(server, client, mongosh_home):
    out = run_mongosh(server, mongosh_home,
                      "const p = db.getSiblingDB('t_mongosh_prof');"
                      "p.setProfilingLevel(2);"
                      "p.c.insertOne({_id: 1});"
                      "const status = p.getProfilingStatus();"
                      "const e = p.system.profile.find({ns: 't_mongosh_prof.c'}).toArray();"
                      "p.setProfilingLevel(0);"
                      "print(JSON.stringify({was: status.was, slowms: status.slowms,"
                      " ops: e.map(x => x.op)}))")
    assert json.loads(out) == {"was": 2, "slowms": 100, "ops": ["insert"]}
    client.drop_database("t_mongosh_prof")


def test_a_shell_user_creates_users_shows_them_and_signs_in_with_db_auth(make_server,
                                                                          mongosh_home):
    server = make_server("mongosh-auth", extra_args=["--auth"])
    base = f"{server.host}:{server.port}"
    # The localhost exception: the first user, from an unauthenticated shell.
    run_mongosh(server, mongosh_home, 'db.getSiblingDB("admin").createUser('
                '{user: "shelladmin", pwd: "adminpw", roles: ["root"]}); print("created")')
    admin_uri = f"mongodb://shelladmin:adminpw@{base}/shop?authSource=admin"
    run_mongosh(server, mongosh_home,
                'db.createUser({user: "clerk", pwd: "clerkpw", roles: ["readWrite"]})',
                uri=admin_uri)
    out = run_mongosh(server, mongosh_home, "show users", uri=admin_uri)
    assert "clerk" in out and "readWrite" in out and "SCRAM-SHA-256" in out, out
    out = run_mongosh(server, mongosh_home,
                      'db.auth("clerk", "clerkpw"); db.items.insertOne({a: 1});'
                      'print("count", db.items.countDocuments({}))',
                      uri=f"mongodb://{base}/shop")
    assert "count 1" in out, out
    denied = mongosh_process(server, mongosh_home, 'db.items.insertOne({a: 2})',
                             uri=f"mongodb://clerk:wrong@{base}/shop")
    assert denied.returncode != 0
    assert "Authentication failed" in denied.stdout + denied.stderr


def test_fsync_lock_and_unlock_helpers(make_server, mongosh_home):
    server = make_server("mongosh-fsync")
    out = run_mongosh(server, mongosh_home,
                      "db.c.insertOne({_id: 1});"
                      "const locked = db.fsyncLock();"
                      "const again = db.fsyncLock();"
                      "const op = db.adminCommand({currentOp: 1});"
                      "const read = db.c.findOne({_id: 1});"
                      "const one = db.fsyncUnlock();"
                      "const zero = db.fsyncUnlock();"
                      "print(JSON.stringify({locked: Number(locked.lockCount), again: Number(again.lockCount),"
                      " shown: op.fsyncLock, read: read._id, one: Number(one.lockCount),"
                      " zero: Number(zero.lockCount), info: zero.info}))")
    assert json.loads(out) == {"locked": 1, "again": 2, "shown": True, "read": 1, "one": 1,
                               "zero": 0, "info": "fsyncUnlock completed"}
    failed = mongosh_process(server, mongosh_home, "db.fsyncUnlock()")
    assert "fsyncUnlock called when not locked" in failed.stdout + failed.stderr


def test_text_search_tutorial_from_the_shell(server, client, mongosh_home):
    # The articles of MongoDB's $text reference page: createIndex with a "text" key, then the
    # searches it documents, with their documented answers; the score of a single-token
    # subject is 1 ("coffee" stems to "coffe", so it is not the whole string) and 0.75 for
    # two tokens ("and" is a stop word).
    script = """
      db.articles.drop();
      const name = db.articles.createIndex({subject: "text"});
      db.articles.insertMany([
        {_id: 1, subject: "coffee", author: "xyz", views: 50},
        {_id: 2, subject: "Coffee Shopping", author: "efg", views: 5},
        {_id: 3, subject: "Baking a cake", author: "abc", views: 90},
        {_id: 4, subject: "baking", author: "xyz", views: 100},
        {_id: 5, subject: "Café Con Leche", author: "abc", views: 200},
        {_id: 6, subject: "Сырники", author: "jkl", views: 80},
        {_id: 7, subject: "coffee and cream", author: "efg", views: 10},
        {_id: 8, subject: "Cafe con Leche", author: "xyz", views: 10}]);
      const ids = (search, flags) => db.articles.find({$text: {$search: search, ...flags}})
          .toArray().map(d => d._id).sort((a, b) => a - b);
      const scored = db.articles.find({$text: {$search: "coffee"}}, {score: {$meta: "textScore"}})
          .sort({score: {$meta: "textScore"}}).toArray();
      const cake = db.articles.find({$text: {$search: "cake"}}, {score: {$meta: "textScore"}})
          .toArray();
      const index = db.articles.getIndexes().find(i => i.name === name);
      ({name, key: index.key, weights: index.weights, language: index.default_language,
        coffee: ids("coffee"),
        any: ids("bake coffee cake"),
        phrase: ids('"coffee shop"'),
        negated: ids("coffee -shop"),
        cafe: ids("Café"),
        cafeAccented: ids("Café", {$diacriticSensitive: true}),
        cafesNotAccented: ids("leches -cafés", {$diacriticSensitive: true}),
        mixed: ids("сы́рники CAFÉS"),
        upper: ids("Coffee", {$caseSensitive: true}),
        upperNotShop: ids("Coffee -shop", {$caseSensitive: true}),
        upperPhrase: ids('"Café Con Leche"', {$caseSensitive: true}),
        spanish: ids("leche", {$language: "es"}),
        scored: scored.map(d => [d._id, d.score]),
        cake: cake.map(d => [d._id, d.subject, d.score])})
    """
    out = run_mongosh(server, mongosh_home, script, db="t_mongosh_text", json_mode="relaxed")
    got = json.loads(out)
    assert got["name"] == "subject_text"
    assert got["key"] == {"_fts": "text", "_ftsx": 1}
    assert got["weights"] == {"subject": 1}
    assert got["language"] == "english"
    assert got["coffee"] == [1, 2, 7]
    assert got["any"] == [1, 2, 3, 4, 7]
    assert got["phrase"] == [2]
    assert got["negated"] == [1, 7]
    assert got["cafe"] == [5, 8]
    assert got["cafeAccented"] == [5]
    assert got["cafesNotAccented"] == [8]
    assert got["mixed"] == [5, 6, 8]
    assert got["upper"] == [2]
    assert got["upperNotShop"] == [2]
    assert got["upperPhrase"] == [5]
    assert got["spanish"] == [5, 8]
    # Highest score first: "coffee" alone (1), then the two-token subjects (0.75) in either order.
    assert got["scored"][0] == [1, pytest.approx(1.0)]
    assert sorted(got["scored"][1:]) == [[2, pytest.approx(0.75)], [7, pytest.approx(0.75)]]
    assert got["cake"] == [[3, "Baking a cake", pytest.approx(0.75)]]
    assert client.t_mongosh_text.articles.count_documents({}) == 8
    client.drop_database("t_mongosh_text")


def test_atlas_search_tutorial_from_the_shell(server, client, mongosh_home):
    # Atlas Search's quick start as a shell user types it: createSearchIndex with a dynamic
    # mapping (and one with autocomplete), wait for READY, then $search and $searchMeta.
    script = """
      db.movies.drop();
      db.movies.insertMany([
        {_id: 1, title: "The Natural", plot: "A baseball player with a mysterious past."},
        {_id: 2, title: "Field of Dreams", plot: "An Iowa farmer builds a baseball field."},
        {_id: 3, title: "Alien", plot: "A crew meets an alien on a distant moon."},
        {_id: 4, title: "Moneyball", plot: "Baseball, statistics and baseball money."}]);
      const created = db.movies.createSearchIndex("default", {mappings: {dynamic: true}});
      db.movies.createSearchIndex("titles", {mappings: {dynamic: false,
          fields: {title: {type: "autocomplete"}}}});
      const ready = () => db.movies.getSearchIndexes().every(i => i.status === "READY");
      for (let i = 0; i < 200 && !ready(); i++) sleep(50);
      const hits = db.movies.aggregate([
          {$search: {text: {query: "baseball", path: "plot"}}},
          {$project: {_id: 1, score: {$meta: "searchScore"}}}]).toArray();
      const fuzzy = db.movies.aggregate([
          {$search: {text: {query: "baseboll", path: "plot", fuzzy: {maxEdits: 1}}}}]).toArray();
      const meta = db.movies.aggregate([
          {$searchMeta: {text: {query: "baseball", path: "plot"}, count: {type: "total"}}}])
          .toArray();
      const typed = db.movies.aggregate([
          {$search: {index: "titles", autocomplete: {query: "mon", path: "title"}}}]).toArray();
      ({created, names: db.movies.getSearchIndexes().map(i => i.name).sort(),
        hits: hits.map(d => d._id), scores: hits.map(d => d.score),
        fuzzy: fuzzy.map(d => d._id).sort(), meta, typed: typed.map(d => d._id)})
    """
    out = run_mongosh(server, mongosh_home, script, db="t_mongosh_search", json_mode="relaxed")
    got = json.loads(out)
    assert got["created"] == "default"
    assert got["names"] == ["default", "titles"]
    # Moneyball says "baseball" twice in few words, so it ranks first.
    assert got["hits"][0] == 4 and sorted(got["hits"]) == [1, 2, 4]
    assert got["scores"] == sorted(got["scores"], reverse=True) and got["scores"][-1] > 0
    assert got["fuzzy"] == [1, 2, 4]
    assert got["meta"] == [{"count": {"total": 3}}]
    assert got["typed"] == [4]
    client.drop_database("t_mongosh_search")
