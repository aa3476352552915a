"""Random commands for test_random_commands.py: every command family, with the options each
takes and values of every BSON type (and nested operators, pipelines and index specs) chosen by
a seeded generator, so that a failure names a seed that repeats it."""

import datetime
import random

from bson import (SON, Binary, Code, Decimal128, Int64, MaxKey, MinKey, ObjectId, Regex,
                  Timestamp)

FIELDS = ["a", "b", "a.b", "c", "_id", "x.y.z", "arr", "arr.0", "$x", "", "a.$", "n"]
OPERATORS = [
    "$eq", "$gt", "$gte", "$in", "$nin", "$lt", "$ne", "$exists", "$type", "$regex", "$options",
    "$elemMatch", "$size", "$all", "$not", "$and", "$or", "$nor", "$mod", "$expr", "$where",
    "$text", "$bitsAllSet", "$jsonSchema", "$comment", "$near", "$geoWithin", "$add", "$concat",
    "$cond", "$map", "$filter", "$reduce", "$let", "$sum", "$avg", "$first", "$push",
    "$addToSet", "$arrayElemAt", "$toInt", "$convert", "$dateToString", "$substrCP", "$split",
    "$regexMatch", "$sortArray", "$setField", "$getField", "$literal", "$switch",
    "$objectToArray", "$zip", "$range", "$slice", "$meta", "$rand", "$dateAdd", "$top", "$topN",
    "$median", "$percentile", "$set", "$unset", "$inc", "$mul", "$rename", "$pull", "$pullAll",
    "$pop", "$currentDate", "$min", "$max", "$setOnInsert", "$bit", "$each", "$position",
    "$sort"]
STAGES = [
    "$match", "$project", "$addFields", "$set", "$unset", "$group", "$sort", "$limit", "$skip",
    "$unwind", "$lookup", "$facet", "$count", "$sortByCount", "$bucket", "$bucketAuto",
    "$replaceRoot", "$replaceWith", "$sample", "$out", "$merge", "$unionWith", "$graphLookup",
    "$densify", "$fill", "$setWindowFields", "$redact", "$collStats", "$indexStats",
    "$currentOp", "$listSessions", "$changeStream", "$vectorSearch", "$search", "$documents",
    "$geoNear", "$planCacheStats", "$listLocalSessions"]
ADMIN = [
    "dbStats", "serverStatus", "currentOp", "killOp", "hello", "buildInfo", "getParameter",
    "profile", "killCursors", "listDatabases", "getLog", "hostInfo", "connectionStatus", "top",
    "whatsmyuri", "planCacheClear", "getCmdLineOpts", "lockInfo", "abortTransaction",
    "commitTransaction", "startSession", "dataSize", "compact", "reIndex", "validate",
    "collStats", "listIndexes"]


class Generator:
    def __init__(self, seed, db):
        self.rng = random.Random(seed)
        self.db = db

    def scalar(self):
        r = self.rng
        return r.choice([
            lambda: r.randint(-3, 3), lambda: Int64(r.choice([0, -1, 2**62, -2**63, 2**63 - 1])),
            lambda: r.choice([0.0, -0.0, 1.5, float("nan"), float("inf"), -float("inf"), 1e308]),
            lambda: r.choice(["", "a", "x" * 50, "é", "\u0000", "$a", "a.b", "$$ROOT", "$$NOW"]),
            lambda: None, lambda: r.choice([True, False]),
            lambda: Decimal128(r.choice(["1", "NaN", "-Inf", "1E6144"])),
            lambda: Regex(r.choice(["^a", "(", "a*b", ""]), r.choice(["", "i", "z"])),
            lambda: Timestamp(r.randint(0, 5), r.randint(0, 5)), lambda: MinKey(),
            lambda: MaxKey(), lambda: Binary(bytes(r.randrange(20)), r.choice([0, 4, 5, 128])),
            lambda: ObjectId(), lambda: datetime.datetime(2020, 1, 1), lambda: Code("x"),
            lambda: r.randint(-2**31, 2**31 - 1), lambda: r.choice([1, -1, 0]),
            lambda: r.choice(["text", "2d", "hashed"]), lambda: [], lambda: {},
            lambda: r.choice(FIELDS), lambda: "$" + r.choice(["a", "b", "arr", "_id"]),
        ])()

    def value(self, depth=0):
        r = self.rng
        if depth > 3 or r.random() < 0.45:
            return self.scalar()
        if r.random() < 0.35:
            return [self.value(depth + 1) for _ in range(r.randrange(4))]
        doc = SON()
        for _ in range(r.randrange(4)):
            doc[r.choice(OPERATORS) if r.random() < 0.5 else r.choice(FIELDS)] = self.value(depth + 1)
        return doc

    def options(self, names):
        return [(n, self.value(1) if self.rng.random() < 0.5 else self.scalar())
                for n in names if self.rng.random() < 0.4]

    def stage(self, depth):
        r = self.rng
        name = r.choice(STAGES)
        if name == "$group":
            argument = SON([("_id", self.value(1)),
                            ("n", {r.choice(["$sum", "$push", "$top", "$max"]): self.value(2)})])
        elif name in ("$limit", "$skip", "$sample"):
            argument = r.choice([1, 0, -1, 2**40, 1.5, "x", {"size": r.randint(-1, 5)}])
        elif name in ("$facet", "$unionWith") and depth < 2:
            argument = (SON([("f", self.pipeline(depth + 1))]) if name == "$facet"
                        else SON([("coll", "c"), ("pipeline", self.pipeline(depth + 1))]))
        elif name == "$lookup" and depth < 2:
            argument = SON([("from", "d"), ("localField", r.choice(FIELDS)),
                            ("foreignField", r.choice(FIELDS)), ("as", "j"),
                            ("pipeline", self.pipeline(depth + 1))][:r.randrange(6)])
        elif name == "$collStats":
            argument = SON([(k, r.choice([{}, SON([("scale", self.scalar())]), self.value(2)]))
                            for k in r.sample(["storageStats", "count", "latencyStats", "bogus"],
                                              r.randrange(3))])
        elif name == "$out":
            argument = r.choice(["o", SON([("db", self.db), ("coll", "o")]), 1])
        elif name == "$merge":
            argument = SON([("into", "m"), ("on", r.choice(["_id", "a"])),
                            ("whenMatched", r.choice(["merge", "fail", "replace", "keepExisting"])),
                            ("whenNotMatched", r.choice(["insert", "discard", "fail"]))])
        else:
            argument = self.value(1)
        return SON([(name, argument)])

    def pipeline(self, depth=0):
        return [self.stage(depth) for _ in range(self.rng.randrange(4 if depth else 6))]

    def command(self):
        r = self.rng
        coll = r.choice(["c", "d", "", "system.views", "a.b", "$x", 5]) if r.random() < 0.15 \
            else r.choice(["c", "d"])
        kind = r.randrange(16)
        if kind == 0:
            return SON([("find", coll), ("filter", self.value())] + self.options(
                ["projection", "sort", "skip", "limit", "batchSize", "hint", "min", "max",
                 "returnKey", "showRecordId", "collation", "let", "singleBatch", "tailable",
                 "awaitData", "maxTimeMS", "noCursorTimeout"]))
        if kind == 1:
            return SON([("aggregate", coll if r.random() < 0.9 else 1),
                        ("pipeline", self.pipeline()), ("cursor", r.choice([{}, 1]))]
                       + self.options(["explain", "allowDiskUse", "collation", "hint", "let",
                                       "bypassDocumentValidation"]))
        if kind == 2:
            return SON([("insert", coll), ("documents", [
                self.value() if r.random() < 0.7 else
                SON([("_id", self.scalar()), ("a", self.value(1)), ("arr", [self.scalar()])])
                for _ in range(r.randrange(1, 5))])] + self.options(["ordered"]))
        if kind == 3:
            return SON([("update", coll), ("updates", [
                SON([("q", self.value()), ("u", r.choice([self.value(), self.pipeline(1)]))]
                    + self.options(["upsert", "multi", "arrayFilters", "collation", "hint"]))
                for _ in range(r.randrange(1, 3))])])
        if kind == 4:
            return SON([("delete", coll), ("deletes", [
                SON([("q", self.value()), ("limit", r.choice([0, 1, 2, "x"]))])])])
        if kind == 5:
            return SON([("findAndModify", coll), ("query", self.value())] + self.options(
                ["sort", "remove", "update", "new", "fields", "upsert", "arrayFilters"]))
        if kind == 6:
            return SON([(r.choice(["count", "distinct"]), coll), ("query", self.value()),
                        ("key", r.choice(FIELDS))] + self.options(["limit", "skip", "hint"]))
        if kind == 7:
            return SON([("createIndexes", coll), ("indexes", [
                SON([("key", SON([(r.choice(FIELDS + ["$**", "a.$**"]),
                                   r.choice([1, -1, "text", 0, "x", 1.5]))])),
                     ("name", r.choice(["i1", "i2", "", self.scalar()]))]
                    + self.options(["unique", "sparse", "partialFilterExpression",
                                    "expireAfterSeconds", "hidden", "collation",
                                    "wildcardProjection", "prepareUnique"]))])])
        if kind == 8:
            return SON([("dropIndexes", coll), ("index", r.choice(["*", "i1", ["i1"], self.value()]))])
        if kind == 9:
            return SON([("collMod", coll)] + self.options(
                ["validator", "validationLevel", "validationAction", "index",
                 "changeStreamPreAndPostImages", "viewOn"]))
        if kind == 10:
            return SON([("create", coll)] + self.options(
                ["capped", "size", "validator", "collation", "viewOn", "pipeline",
                 "expireAfterSeconds", "autoIndexId", "storageEngine"]))
        if kind == 11:
            return SON([("explain", self.command()), ("verbosity", r.choice(
                ["queryPlanner", "executionStats", "allPlansExecution", "x"]))])
        if kind == 12:
            return SON([("getMore", r.choice([Int64(0), Int64(r.randrange(1 << 62)), 1])),
                        ("collection", coll)] + self.options(["batchSize", "maxTimeMS"]))
        if kind == 13:
            target = r.choice([coll, f"{self.db}.{coll}", 1, self.value()])
            return SON([(r.choice(ADMIN), target)] + self.options(
                ["filter", "scale", "force", "estimate", "maxSize", "maxObjects", "min", "max",
                 "full", "cursor", "comment", "ids", "level", "slowms"]))
        if kind == 14:
            return SON([("renameCollection", f"{self.db}.{coll}"),
                        ("to", r.choice([f"{self.db}.e", f"{self.db}.c", 1]))])
        return SON([("insert", "c"), ("documents", [
            SON([("_id", r.randrange(50)), ("a", self.value(2)), ("b", self.scalar()),
                 ("arr", [self.value(3) for _ in range(r.randrange(4))])])
            for _ in range(r.randrange(1, 8))])])
