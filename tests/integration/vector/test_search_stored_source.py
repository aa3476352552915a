"""Atlas Search's stored source against a real quarryd: an index's `storedSource` (true, or
`include` / `exclude` lists of paths) and `$search`'s `returnStoredSource: true`, which returns
only the stored fields of each match (with `_id`), as Atlas's "Return Stored Source Fields"
tutorial shows, and the errors for definitions and searches that cannot be answered.
"""
import pytest
from pymongo.errors import OperationFailure

from test_full_text_search import create_index, create_ready

DOCS = [
    {"_id": 1, "title": "River song", "year": 2001, "cast": {"lead": "Ann", "extra": "Bo"},
     "plot": "A long river"},
    {"_id": 2, "title": "River deep", "year": 1999, "cast": {"lead": "Cy"}, "plot": "Deep"},
    {"_id": 3, "title": "Mountain", "year": 2010, "plot": "High"},
]
MAPPINGS = {"dynamic": False, "fields": {"title": {"type": "string"}}}


def project(doc, include=None, exclude=None):
    """`doc` with only the `include` paths (and _id), or without the `exclude` paths."""
    def get(d, path):
        for part in path.split("."):
            if not isinstance(d, dict) or part not in d:
                return None, False
            d = d[part]
        return d, True

    def put(d, path, value):
        parts = path.split(".")
        for part in parts[:-1]:
            d = d.setdefault(part, {})
        d[parts[-1]] = value

    if include is not None:
        out = {"_id": doc["_id"]}
        for path in include:
            value, found = get(doc, path)
            if found:
                put(out, path, value)
        return out
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in doc.items()}
    for path in exclude:
        parts = path.split(".")
        d = out
        for part in parts[:-1]:
            d = d.get(part, {})
        d.pop(parts[-1], None)
    return out


def search_river(db, **options):
    return list(db.movies.aggregate([
        {"$search": {"text": {"query": "river", "path": "title"}, **options}},
        {"$sort": {"_id": 1}}]))


@pytest.mark.parametrize("stored,include,exclude", [
    (True, None, []),
    ({"include": ["title", "cast.lead"]}, ["title", "cast.lead"], None),
    ({"exclude": ["plot", "cast.extra"]}, None, ["plot", "cast.extra"]),
])
def test_return_stored_source_returns_the_stored_fields(db, stored, include, exclude):
    db.movies.insert_many(DOCS)
    create_ready(db, "movies", {"mappings": MAPPINGS, "storedSource": stored})
    matched = [d for d in DOCS if "River" in d["title"]]
    assert search_river(db, returnStoredSource=True) == \
        [project(d, include, exclude) for d in matched]
    # Without the option, whole documents as always.
    assert search_river(db) == matched
    assert search_river(db, returnStoredSource=False) == matched


def test_return_stored_source_keeps_scores_and_follows_writes(db):
    db.movies.insert_many(DOCS)
    create_ready(db, "movies", {"mappings": MAPPINGS, "storedSource": {"include": ["year"]}})
    db.movies.update_one({"_id": 2}, {"$set": {"year": 2024}})
    got = list(db.movies.aggregate([
        {"$search": {"text": {"query": "river", "path": "title"}, "returnStoredSource": True}},
        {"$project": {"year": 1, "score": {"$meta": "searchScore"}}}]))
    assert sorted((d["_id"], d["year"]) for d in got) == [(1, 2001), (2, 2024)]
    assert all(d["score"] > 0 for d in got)


def test_without_stored_source_return_stored_source_is_refused(db):
    db.movies.insert_many(DOCS)
    for stored in [None, False]:
        definition = {"mappings": MAPPINGS}
        if stored is not None:
            definition["storedSource"] = stored
        db.movies.drop_indexes()
        name = "plain" if stored is None else "false"
        create_ready(db, "movies", definition, name=name)
        with pytest.raises(OperationFailure) as failure:
            list(db.movies.aggregate([{"$search": {
                "index": name, "text": {"query": "river", "path": "title"},
                "returnStoredSource": True}}]))
        assert failure.value.code == 2
        assert "storedSource" in str(failure.value)
    with pytest.raises(OperationFailure) as failure:
        search_river(db, returnStoredSource=1)
    assert failure.value.code == 14


@pytest.mark.parametrize("stored", [
    "all", {"include": []}, {"include": ["a"], "exclude": ["b"]}, {"only": ["a"]},
    {"include": ["a", "a.b"]}, {"include": [3]},
])
def test_malformed_stored_source_definitions_are_refused(db, stored):
    db.create_collection("movies")
    with pytest.raises(OperationFailure) as failure:
        create_index(db, "movies", {"mappings": MAPPINGS, "storedSource": stored})
    assert failure.value.code == 2
    assert "storedSource" in str(failure.value)
