"""Atlas Search custom analyzers against a real quarryd: a definition's `analyzers` (character
filters, a tokenizer, token filters) named by string fields, autocomplete fields and the index,
as Atlas's "Custom Analyzers" pages use them, with the errors for what is malformed or missing.

Expected matches are worked out here from what each analyzer makes of the documents.
"""
import pytest
from pymongo.errors import OperationFailure

from test_full_text_search import create_index, create_ready

DOCS = [
    {"_id": 1, "page": "<p>Quarry <b>st</b>ores <i>documents</i></p><p>Fast &amp; local</p>",
     "phone": "(555) 123-4567", "title": "Café Olé"},
    {"_id": 2, "page": "<div>stores</div><script>var documents = 1;</script>",
     "phone": "555.987.6543", "title": "CAFE society"},
    {"_id": 3, "page": "plain text about documents", "phone": "n/a", "title": "Tea house"},
]

ANALYZERS = [
    {"name": "htmlText", "charFilters": [{"type": "htmlStrip"}],
     "tokenizer": {"type": "standard"}, "tokenFilters": [{"type": "lowercase"}]},
    {"name": "digits", "tokenizer": {"type": "keyword"},
     "tokenFilters": [{"type": "regex", "pattern": "[^0-9]", "replacement": "", "matches": "all"},
                      {"type": "length", "min": 10}]},
    {"name": "folded", "tokenizer": {"type": "whitespace"},
     "tokenFilters": [{"type": "icuFolding"}]},
    {"name": "grams", "tokenizer": {"type": "standard"},
     "tokenFilters": [{"type": "lowercase"},
                      {"type": "edgeGram", "minGram": 2, "maxGram": 5}]},
]

DEFINITION = {
    "analyzers": ANALYZERS,
    "mappings": {"dynamic": False, "fields": {
        "page": {"type": "string", "analyzer": "htmlText"},
        "phone": {"type": "string", "analyzer": "digits"},
        "title": [{"type": "string", "analyzer": "folded"},
                  {"type": "autocomplete", "analyzer": "folded", "minGrams": 2}],
    }},
}


@pytest.fixture
def pages(db):
    db.pages.insert_many(DOCS)
    create_ready(db, "pages", DEFINITION)
    return db


def found(db, operator, **options):
    return sorted(d["_id"] for d in db.pages.aggregate([{"$search": {**operator, **options}}]))


def test_html_is_stripped_before_the_words_are_found(pages):
    # "<b>st</b>ores" is one word once the inline tags go; script bodies are not text.
    assert found(pages, {"text": {"query": "stores", "path": "page"}}) == [1, 2]
    assert found(pages, {"text": {"query": "documents", "path": "page"}}) == [1, 3]
    assert found(pages, {"text": {"query": "b", "path": "page"}}) == []
    assert found(pages, {"phrase": {"query": "fast & local", "path": "page"}}) == [1]


def test_highlights_point_into_the_stored_html(pages):
    got = list(pages.pages.aggregate([
        {"$search": {"text": {"query": "local", "path": "page"}, "highlight": {"path": "page"}}},
        {"$project": {"h": {"$meta": "searchHighlights"}}}]))
    texts = [t for h in got[0]["h"] for t in h["texts"] if t["type"] == "hit"]
    assert texts == [{"value": "local", "type": "hit"}]


def test_token_filters_rewrite_terms(pages):
    # The phone analyzer keeps the digits of the whole value, and only ten of them or more.
    assert found(pages, {"text": {"query": "555-123-4567", "path": "phone"}}) == [1]
    assert found(pages, {"text": {"query": "(555) 987 6543", "path": "phone"}}) == [2]
    assert found(pages, {"text": {"query": "n/a", "path": "phone"}}) == []
    # ICU folding: case and accents fold together.
    assert found(pages, {"text": {"query": "cafe", "path": "title"}}) == [1, 2]
    assert found(pages, {"text": {"query": "OLE", "path": "title"}}) == [1]


def test_an_autocomplete_field_may_name_a_custom_analyzer(pages):
    assert found(pages, {"autocomplete": {"query": "CAF", "path": "title"}}) == [1, 2]
    assert found(pages, {"autocomplete": {"query": "soc", "path": "title"}}) == [2]


def test_wildcards_on_a_custom_analyzed_field_are_normalized_like_its_terms(pages):
    assert found(pages, {"wildcard": {"query": "CAFÉ*", "path": "title",
                                      "allowAnalyzedField": True}}) == [1, 2]
    with pytest.raises(OperationFailure) as failure:
        found(pages, {"wildcard": {"query": "caf*", "path": "title"}})
    assert failure.value.code == 2


def test_the_index_analyzer_may_be_custom(db):
    db.docs.insert_many([{"_id": 1, "t": "Running dogs"}, {"_id": 2, "t": "run"}])
    create_ready(db, "docs", {
        "analyzer": "stems", "searchAnalyzer": "stems", "mappings": {"dynamic": True},
        "analyzers": [{"name": "stems", "tokenizer": {"type": "standard"}, "tokenFilters": [
            {"type": "lowercase"}, {"type": "snowballStemming", "stemmerName": "english"}]}]})
    got = sorted(d["_id"] for d in db.docs.aggregate([
        {"$search": {"text": {"query": "runs", "path": "t"}}}]))
    assert got == [1, 2]


@pytest.mark.parametrize("definition,code,words", [
    ({"analyzers": [{"name": "a", "tokenizer": {"type": "standard"}}],
      "mappings": {"fields": {"t": {"type": "string", "analyzer": "b"}}}}, 2, "\"b\""),
    ({"analyzers": [{"name": "a"}], "mappings": {"dynamic": True}}, 2, "tokenizer"),
    ({"analyzers": [{"name": "a", "tokenizer": {"type": "standard"},
                     "tokenFilters": [{"type": "kStemming"}]}],
      "mappings": {"dynamic": True}}, 238, "kStemming"),
    ({"analyzers": [{"name": "a", "tokenizer": {"type": "standard"},
                     "tokenFilters": [{"type": "bogus"}]}],
      "mappings": {"dynamic": True}}, 2, "bogus"),
    ({"analyzers": [{"name": "a", "tokenizer": {"type": "standard"}},
                    {"name": "a", "tokenizer": {"type": "keyword"}}],
      "mappings": {"dynamic": True}}, 2, "twice"),
    ({"analyzers": "a", "mappings": {"dynamic": True}}, 2, "analyzers"),
])
def test_malformed_custom_analyzers_are_refused(db, definition, code, words):
    db.create_collection("docs")
    with pytest.raises(OperationFailure) as failure:
        create_index(db, "docs", definition)
    assert failure.value.code == code
    assert words in str(failure.value)
