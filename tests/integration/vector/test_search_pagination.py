"""Atlas Search pagination against a real quarryd: `{$meta: "searchSequenceToken"}` on each
result, and `searchAfter` / `searchBefore` continuing from one, by score and under `sort`, as
Atlas's "Paginate the Results" tutorial pages through them.

Expected pages are computed here from the full, unpaged result list of the same search.
"""
import pytest
from pymongo.errors import OperationFailure

from test_full_text_search import create_ready

# Ties on purpose: equal years and equal scores must still page without repeats or gaps.
DOCS = [{"_id": i, "title": f"{word} story", "year": 1990 + (i % 4)}
        for i, word in enumerate(["river", "river river", "mountain", "river", "ocean",
                                  "river", "desert", "river river river", "forest", "river"])]
DOCS.append({"_id": 10, "title": "river without a year"})

MAPPING = {"mappings": {"dynamic": True}}


@pytest.fixture
def stories(db):
    db.stories.insert_many(DOCS)
    create_ready(db, "stories", MAPPING)
    return db


def run(db, search, limit=None):
    pipeline = [{"$search": search}]
    if limit is not None:
        pipeline.append({"$limit": limit})
    pipeline.append({"$project": {"_id": 1, "token": {"$meta": "searchSequenceToken"},
                                  "score": {"$meta": "searchScore"}}})
    return list(db.stories.aggregate(pipeline))


def page_through(db, search, size):
    """The _ids of every page of `size`, each continuing with searchAfter from the last."""
    seen, after = [], None
    while True:
        page = run(db, {**search, **({"searchAfter": after} if after else {})}, limit=size)
        if not page:
            return seen
        seen.extend(d["_id"] for d in page)
        after = page[-1]["token"]


SEARCHES = [
    {"text": {"query": "river", "path": "title"}},
    {"text": {"query": "river", "path": "title"}, "sort": {"year": -1}},
    {"exists": {"path": "title"}, "sort": {"year": 1, "score": {"$meta": "searchScore"}}},
    {"exists": {"path": "title"}, "sort": {"year": {"order": 1, "noData": "highest"}}},
]


@pytest.mark.parametrize("search", SEARCHES)
@pytest.mark.parametrize("size", [1, 3, 4])
def test_search_after_pages_through_every_match_once_in_order(stories, search, size):
    everything = [d["_id"] for d in run(stories, search)]
    assert len(everything) > size
    assert page_through(stories, search, size) == everything


@pytest.mark.parametrize("search", SEARCHES)
def test_search_before_returns_the_matches_before_a_token_nearest_first(stories, search):
    everything = run(stories, search)
    for at in (1, len(everything) // 2, len(everything) - 1):
        before = run(stories, {**search, "searchBefore": everything[at]["token"]})
        assert [d["_id"] for d in before] == [d["_id"] for d in reversed(everything[:at])]
    assert run(stories, {**search, "searchBefore": everything[0]["token"]}) == []


def test_a_token_carries_the_score_order_of_its_search(stories):
    results = run(stories, SEARCHES[0])
    scores = [d["score"] for d in results]
    assert scores == sorted(scores, reverse=True)
    # Each result has its own token; tied scores still differ in it.
    assert len({d["token"] for d in results}) == len(results)
    assert all(isinstance(d["token"], str) for d in results)


def test_search_meta_counts_every_match_whatever_the_page(stories):
    first = run(stories, SEARCHES[0], limit=2)
    pipeline = [{"$search": {**SEARCHES[0], "count": {"type": "total"},
                             "searchAfter": first[-1]["token"]}},
                {"$limit": 1}, {"$project": {"meta": "$$SEARCH_META"}}]
    total = len(run(stories, SEARCHES[0]))
    assert list(stories.stories.aggregate(pipeline))[0]["meta"] == {"count": {"total": total}}


def code_of(db, search):
    with pytest.raises(OperationFailure) as failure:
        run(db, search)
    return failure.value.code


def test_bad_tokens_and_mixed_options_are_refused(stories):
    token = run(stories, SEARCHES[0])[0]["token"]
    sorted_token = run(stories, SEARCHES[1])[0]["token"]
    assert code_of(stories, {**SEARCHES[0], "searchAfter": "not a token"}) == 2
    assert code_of(stories, {**SEARCHES[0], "searchAfter": 5}) == 14
    assert code_of(stories, {**SEARCHES[0], "searchAfter": token,
                             "searchBefore": token}) == 2
    # A token remembers how many sort keys made it.
    assert code_of(stories, {**SEARCHES[0], "searchAfter": sorted_token}) == 2
    assert code_of(stories, {**SEARCHES[1], "searchBefore": token}) == 2
    with pytest.raises(OperationFailure) as failure:
        list(stories.stories.aggregate([{"$searchMeta": {**SEARCHES[0],
                                                         "searchAfter": token}}]))
    assert failure.value.code == 238
