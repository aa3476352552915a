"""Atlas Search's `geo` mapping (points) and the `geoWithin` and `near` operators against a real
quarryd: a field mapped `{type: "geo"}` holds the GeoJSON Points at its path (alone, in arrays,
under document fields), `geoWithin` finds the documents with a point inside a circle, a box
(across the antimeridian when the bottom-left corner's longitude is the greater) or polygons
(with holes, and MultiPolygons), and `near` with a GeoJSON origin scores pivot / (pivot + the
distance to the document's nearest point).

Covered: what is indexed and what is not (legacy pairs, coordinates out of range, other GeoJSON
types, dynamic mappings), each region, arrays of points, several paths, scores (constant 1, boost,
constant), near's ranking, compound with text, $searchMeta, writes, a restart, and the errors of
definitions and queries.

Expected answers are computed here as Lucene's LatLonPoint queries test them: haversine distances
on an earth of radius 6,371,008.7714 m, boxes between the corners' latitudes and longitudes,
polygons by the crossing count with edges straight in degrees. Every test point keeps clear of
the regions' boundaries (a kilometre from a circle, 0.01 degrees from a box or a polygon's edges),
and checks that it does, since boundaries are not part of the contract; near's distances are at
least 20 km (or dwarfed by the pivot), so that rounding coordinates in the index would stay far
below rel=1e-6.
"""
import copy
import math

import pymongo
import pytest
from bson import Int64

from quarry_server import CLIENT_OPTIONS
from test_full_text_search import (DYNAMIC, STRING, Field, add, assert_errors, create_index,
                                   create_ready, ids, ranked, search, search_meta,
                                   static, text, wait_ready)
from test_vector_search import list_indexes

NOT_IMPLEMENTED, BAD_VALUE = 238, 2
EARTH_RADIUS_METERS = 6_371_008.7714  # Lucene's GeoUtils.EARTH_MEAN_RADIUS_METERS
KM = 1000


def point(lng, lat):
    return {"type": "Point", "coordinates": [lng, lat]}


def city(_id, name, category, lng, lat, *airports):
    """A city at (lng, lat); its airport a sub-document, or several in an array."""
    doc = {"_id": _id, "name": name, "category": category, "location": point(lng, lat)}
    if airports:
        found = [{"code": code, "location": point(*at)} for code, at in airports]
        doc["airport"] = found[0] if len(found) == 1 else found
    return doc


PARIS, SUVA = (2.3522, 48.8566), (178.4419, -18.1416)
CITIES = [
    city(1, "Paris", "capital", *PARIS, ("CDG", (2.5479, 49.0097))),
    city(2, "London", "capital", -0.1276, 51.5072, ("LHR", (-0.4543, 51.4700)),
         ("LGW", (-0.1821, 51.1537))),
    city(3, "New York", "port city", -74.0060, 40.7128, ("JFK", (-73.7781, 40.6413))),
    city(4, "Tokyo", "capital", 139.6917, 35.6895, ("NRT", (140.3929, 35.7720))),
    city(5, "Sydney", "port city", 151.2093, -33.8688, ("SYD", (151.1772, -33.9399))),
    city(6, "Buenos Aires", "capital port", -58.3816, -34.6037),
    city(7, "Cape Town", "port city", 18.4241, -33.9249),
    city(8, "Suva", "island capital", *SUVA, ("NAN", (177.4434, -17.7554))),  # Fiji; Nadi
    city(9, "Apia", "island capital", -171.7514, -13.8333),  # Samoa, across the antimeridian
    city(10, "Nuku'alofa", "island capital", -175.2018, -21.1394),  # Tonga
    city(11, "Reykjavik", "island capital", -21.8174, 64.1265),
    city(12, "Versailles", "town", 2.1301, 48.8049),
    city(13, "Lyon", "city", 4.8357, 45.7640),
    city(14, "Quito", "capital", -78.4678, -0.1807),
    city(15, "Auckland", "port city", 174.7633, -36.8485, ("AKL", (174.7850, -37.0082))),
    city(16, "Honolulu", "island port city", -157.8583, 21.3069),
    # Several points: the document is where any of them is.
    {"_id": 17, "name": "Dover Calais ferry", "category": "port ferry",
     "location": [point(1.3136, 51.1279), point(1.8587, 50.9513)]},
    # Whole numbers, int32 and int64, are numbers.
    {"_id": 18, "name": "Gulf buoy", "category": "buoy", "location": point(3, Int64(1))},
    # Madrid is the one point of its array; the rest is not indexed.
    {"_id": 19, "name": "Madrid", "category": "capital",
     "location": [point(200, 10), [0, 0], point(-3.7038, 40.4168), "Madrid"]},
    # The ends of the ranges are points.
    {"_id": 20, "name": "North Pole", "category": "pole", "location": point(0, 90)},
    {"_id": 21, "name": "Taveuni", "category": "island", "location": point(180, -16.8)},
    # Values at the path that are no GeoJSON Point: never indexed, never found.
    {"_id": 22, "name": "Legacy Paris", "category": "capital", "location": [2.3522, 48.8566]},
    {"_id": 23, "name": "Far east", "category": "nowhere", "location": point(200, 10)},
    {"_id": 24, "name": "Far north", "category": "nowhere", "location": point(10, 95)},
    {"_id": 25, "name": "Far west", "category": "nowhere", "location": point(-180.5, 10)},
    {"_id": 26, "name": "Not a number", "category": "nowhere",
     "location": point(float("nan"), 48.8566)},
    {"_id": 27, "name": "Seine", "category": "river",
     "location": {"type": "LineString", "coordinates": [[2.0, 49.0], [2.5, 48.8]]}},
    {"_id": 28, "name": "Paris in words", "category": "capital", "location": "Paris"},
    {"_id": 29, "name": "Lost", "category": "capital"},
    {"_id": 30, "name": "Quoted", "category": "nowhere",
     "location": {"type": "Point", "coordinates": ["2.3522", "48.8566"]}},
    {"_id": 31, "name": "Paris as a square", "category": "city",
     "location": {"type": "Polygon",
                  "coordinates": [[[2, 48], [3, 48], [3, 49], [2, 49], [2, 48]]]}},
    {"_id": 32, "name": "Half a point", "category": "nowhere",
     "location": {"type": "Point", "coordinates": [2.3522]}},
    {"_id": 33, "name": "Lowercase", "category": "nowhere",
     "location": {"type": "point", "coordinates": [2.3522, 48.8566]}},
    {"_id": 34, "name": "Points", "category": "nowhere",
     "location": {"type": "MultiPoint", "coordinates": [[2.3522, 48.8566]]}},
]
LOCATED = list(range(1, 22))  # the documents with a point at `location`
WITH_AIRPORTS = [1, 2, 3, 4, 5, 8, 15]

GEO = {"type": "geo"}


def document(**fields):
    return {"type": "document", "fields": fields}


INDEXES = {  # name -> definition, all on CITIES
    # The index under test.
    "default": static(name=STRING, category=STRING, location=GEO,
                      airport=document(location=GEO)),
    # indexShapes: false is what a geo mapping does anyway.
    "no_shapes": static(location={"type": "geo", "indexShapes": False}),
    # A dynamic root with the location mapped: text on every string, geo on location only.
    "dynamic_root": {"mappings": {"dynamic": True, "fields": {"location": GEO}}},
    # Dynamic mappings hold no geo at all.
    "dynamic": DYNAMIC,
}

DATABASE = "t_search_geo"


# --- the geometry, as Lucene computes it ---------------------------------------------------

def haversine(a, b):
    """Meters between (lng, lat) points a and b along a great circle."""
    (lng1, lat1), (lng2, lat2) = a, b
    dlat, dlng = math.radians(lat2 - lat1), math.radians(lng2 - lng1)
    h = (math.sin(dlat / 2) ** 2 +
         math.cos(math.radians(lat1)) * math.cos(math.radians(lat2)) * math.sin(dlng / 2) ** 2)
    return 2 * EARTH_RADIUS_METERS * math.asin(math.sqrt(h))


def is_point(value):
    if not isinstance(value, dict) or value.get("type") != "Point":
        return False
    coordinates = value.get("coordinates")
    return (isinstance(coordinates, list) and len(coordinates) == 2 and
            all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in coordinates) and
            -180 <= coordinates[0] <= 180 and -90 <= coordinates[1] <= 90)


def values_at(value, path):
    """The values at dotted `path`, through arrays of sub-documents; an array there is its
    elements."""
    if isinstance(value, list):
        return [v for element in value for v in values_at(element, path)]
    if not path:
        return [value]
    head, _, rest = path.partition(".")
    if not isinstance(value, dict) or head not in value:
        return []
    return values_at(value[head], rest)


def points(doc, path):
    """The (lng, lat) of each GeoJSON Point at `path` of `doc`."""
    return [tuple(v["coordinates"]) for v in values_at(doc, path) if is_point(v)]


def in_ring(ring, p):
    """The crossing count, with edges straight in degrees."""
    lng, lat = p
    inside = False
    for (ax, ay), (bx, by) in zip(ring, ring[1:]):
        if (ay > lat) != (by > lat) and lng < (bx - ax) * (lat - ay) / (by - ay) + ax:
            inside = not inside
    return inside


def edge_distance(ring, p):
    """Degrees (planar) from `p` to the nearest edge of `ring`."""
    best = math.inf
    for (ax, ay), (bx, by) in zip(ring, ring[1:]):
        dx, dy = bx - ax, by - ay
        t = max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / (dx * dx + dy * dy)))
        best = min(best, math.hypot(p[0] - ax - t * dx, p[1] - ay - t * dy))
    return best


def polygons_of(geometry):
    if geometry["type"] == "Polygon":
        return [geometry["coordinates"]]
    return geometry["coordinates"]


def contains(region, p):
    """Whether the region of a geoWithin ({circle}, {box} or {geometry}) holds point `p`.
    Fails when `p` is too near the region's boundary for the answer to be certain."""
    (kind, shape), = region.items()
    if kind == "circle":
        d = haversine(shape["center"]["coordinates"], p)
        assert abs(d - shape["radius"]) >= KM, f"{p} is {d} m from the center of {shape}"
        return d <= shape["radius"]
    if kind == "box":
        (west, south), (east, north) = (shape["bottomLeft"]["coordinates"],
                                        shape["topRight"]["coordinates"])
        lng, lat = p
        assert min(abs(lat - south), abs(lat - north), abs(lng - west), abs(lng - east)) >= 0.01, \
            f"{p} is on the edge of {shape}"
        if not south <= lat <= north:
            return False
        return west <= lng <= east if west <= east else (lng >= west or lng <= east)
    for rings in polygons_of(shape):
        for ring in rings:
            assert edge_distance(ring, p) >= 0.01, f"{p} is on an edge of {ring}"
    return any(in_ring(rings[0], p) and not any(in_ring(hole, p) for hole in rings[1:])
               for rings in polygons_of(shape))


def as_list(paths):
    return paths if isinstance(paths, list) else [paths]


def within_scores(docs, paths, region):
    """{_id: 1 for each path with a point inside the region}."""
    scores = {}
    for doc in docs:
        n = sum(any([contains(region, p) for p in points(doc, path)]) for path in as_list(paths))
        if n:
            scores[doc["_id"]] = float(n)
    return scores


def near_scores(docs, paths, origin, pivot):
    """{_id: the sum over paths of pivot / (pivot + meters to the nearest point there)}."""
    scores = {}
    for doc in docs:
        for path in as_list(paths):
            held = points(doc, path)
            if held:
                d = min(haversine(origin, p) for p in held)
                assert d >= 20 * KM, f"{doc['_id']} is {d} m from the origin {origin}"
                scores[doc["_id"]] = scores.get(doc["_id"], 0) + pivot / (pivot + d)
    return scores


# --- operators ------------------------------------------------------------------------------

def circle(center, radius):
    return {"circle": {"center": point(*center), "radius": radius}}


def box(bottom_left, top_right):
    return {"box": {"bottomLeft": point(*bottom_left), "topRight": point(*top_right)}}


def ring(*corners):
    return [list(c) for c in corners] + [list(corners[0])]


def polygon(*rings):
    return {"geometry": {"type": "Polygon", "coordinates": list(rings)}}


def multi_polygon(*polygons):
    return {"geometry": {"type": "MultiPolygon", "coordinates": list(polygons)}}


def geo_within(region, path="location", **options):
    return {"geoWithin": {"path": path, **region, **options}}


def near(origin, pivot, path="location", **options):
    return {"near": {"path": path, "origin": point(*origin), "pivot": pivot, **options}}


def compound(must=(), should=(), must_not=(), filter_=(), **options):
    clauses = {"must": must, "should": should, "mustNot": must_not, "filter": filter_}
    return {"compound": {**{k: list(v) for k, v in clauses.items() if v}, **options}}


def assert_same(got, want):
    """Same _ids in the same order, scores equal to within rel=1e-6."""
    assert ids(got) == ids(want)
    assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-6)


EUROPE = box((-10, 35), (20, 60))
DATELINE = box((170, -25), (-170, -10))
FRANCE = ring((-2, 42), (8, 43), (7, 51.5), (-1, 50))
JAPAN = ring((138, 34), (142, 34), (140, 38))
AROUND_PARIS = ring((1.5, 48.3), (3, 48.3), (3, 49.3), (1.5, 49.3))
CATEGORY = Field(CITIES, "category")


def test_the_corpus_is_as_described():
    assert [d["_id"] for d in CITIES if points(d, "location")] == LOCATED
    assert [d["_id"] for d in CITIES if points(d, "airport.location")] == WITH_AIRPORTS
    assert points(CITIES[18], "location") == [(-3.7038, 40.4168)]
    assert points(CITIES[1], "airport.location") == [(-0.4543, 51.4700), (-0.1821, 51.1537)]
    # Paris to London is 343.5 km; Suva to Apia 1152 km across the antimeridian.
    assert haversine(PARIS, CITIES[1]["location"]["coordinates"]) == pytest.approx(343_530,
                                                                                    abs=10)
    assert haversine(SUVA, CITIES[8]["location"]["coordinates"]) == pytest.approx(1_152_190,
                                                                                   abs=10)
    assert haversine((0, 0), (180, 0)) == pytest.approx(math.pi * EARTH_RADIUS_METERS)


# --- fixture ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def cities(client):
    """One database for the module: CITIES under every index of INDEXES."""
    client.drop_database(DATABASE)
    db = client[DATABASE]
    db.cities.insert_many(copy.deepcopy(CITIES))
    for name, definition in INDEXES.items():
        create_ready(db, "cities", definition, name=name)
    yield db
    client.drop_database(DATABASE)


def found(db, operator, index="default"):
    return search(db, "cities", operator, index=index)


def found_ids(db, operator, index="default"):
    return sorted(ids(found(db, operator, index=index)))


def test_the_definitions_are_listed_as_given(cities):
    for index, definition in INDEXES.items():
        (listed,) = list_indexes(cities, "cities", name=index)
        assert listed["latestDefinition"] == definition, index
        assert listed["status"] == "READY" and listed["queryable"] is True


# --- geoWithin: each region finds the documents with a point inside -------------------------

WITHIN = [  # region, the CITIES with a location inside (worked out by hand)
    # Circles: haversine distance from the center up to the radius.
    (circle(PARIS, 50 * KM), [1, 12]),  # Versailles is 17 km away
    (circle(PARIS, 300 * KM), [1, 12, 17]),  # Calais 236 km, Dover 263 km; London 344 km
    (circle(PARIS, 400 * KM), [1, 2, 12, 13, 17]),  # Lyon 392 km
    (circle((-2, 51.3), 300 * KM), [2, 17]),  # London 132 km, Dover 232 km, Calais 272 km
    (circle((-2, 51.3), 420 * KM), [1, 2, 12, 17]),  # Versailles 405 km, Paris 413 km
    (circle(SUVA, 200 * KM), [8]),
    (circle(SUVA, 800 * KM), [8, 10, 21]),  # Taveuni 223 km, Nuku'alofa (-175.2) 744 km
    (circle(SUVA, 1200 * KM), [8, 9, 10, 21]),  # Apia 1152 km
    (circle((-172, -14), 100 * KM), [9]),
    (circle((-179.8, -16.9), 50 * KM), [21]),  # at longitude 180
    (circle((0, 89), 200 * KM), [20]),
    (circle((90, 85), 700 * KM), [20]),  # the pole is 556 km away, whatever the longitude
    (circle((0, 0), 500 * KM), [18]),  # whole-number coordinates
    (circle((-3.7, 40.4), 50 * KM), [19]),  # the one point of an array
    (circle((0, 0), 0), []),
    (circle((-120, -60), 1000 * KM), []),
    # More than half the earth's circumference (20,015 km): every point, and only points.
    (circle(PARIS, 20_100 * KM), LOCATED),
    (circle((-100, -80), 20_100 * KM), LOCATED),
    # Boxes: latitudes between the corners', longitudes between theirs.
    (EUROPE, [1, 2, 12, 13, 17, 19]),  # not Reykjavik
    (box((-80, -40), (160, 0)), [5, 6, 7, 14]),  # Quito at -0.18; Auckland east of 160
    (box((-170, -40), (170, -10)), [5, 6, 7]),
    (box((0.5, 50), (2.5, 52)), [17]),  # Dover and Calais
    (box((-179.9, -89.9), (179.9, 89.9)), LOCATED[:-2]),  # not the pole, not Taveuni
    # ... and across the antimeridian when bottomLeft's longitude is the greater.
    (DATELINE, [8, 9, 10, 21]),
    (box((170, -40), (-170, -10)), [8, 9, 10, 15, 21]),
    (box((130, 20), (-150, 40)), [4, 16]),  # Tokyo to Honolulu
    (box((179, -90), (-179, 89)), [21]),
    (box((179.5, -17), (-179.5, -16.5)), [21]),
    (box((178, -19), (179.5, -17)), [8]),
    (box((-179.5, -19), (-178, -15)), []),
    # Polygons: the crossing count, edges straight in degrees; holes excluded.
    (polygon(FRANCE), [1, 12, 13]),  # Calais is north of the edge from (7, 51.5) to (-1, 50)
    (polygon(list(reversed(FRANCE))), [1, 12, 13]),  # clockwise rings are the same region
    (polygon(JAPAN), [4]),
    (polygon(ring((-90, -45), (40, -45), (-30, 10))), [6, 7]),  # not Sydney nor Quito
    (polygon(ring((-10, 35), (20, 35), (20, 60), (-10, 60)), AROUND_PARIS), [2, 13, 17, 19]),
    (polygon(FRANCE, AROUND_PARIS), [13]),
    (polygon(ring((100, 60), (110, 60), (110, 70), (100, 70))), []),
    # MultiPolygons: inside any of them.
    (multi_polygon([FRANCE], [JAPAN]), [1, 4, 12, 13]),
    (multi_polygon([FRANCE, AROUND_PARIS], [JAPAN], [ring((1, 50.5), (2.5, 50.5), (2, 51.5))]),
     [4, 13, 17]),
]


@pytest.mark.parametrize("region,expected", WITHIN, ids=[str(n) for n in range(len(WITHIN))])
def test_geo_within_finds_the_documents_with_a_point_in_the_region(cities, region, expected):
    assert sorted(within_scores(CITIES, "location", region)) == expected, "the expectation"
    got = found(cities, geo_within(region))
    assert sorted(ids(got)) == expected
    # A constant score of 1, so the documents come in their insertion order.
    assert got == [(i, 1.0) for i in expected]
    assert found(cities, geo_within(region), index="no_shapes") == got
    assert found(cities, geo_within(region), index="dynamic_root") == got


def test_a_document_matches_once_however_many_of_its_points_are_inside(cities):
    for region in [circle(PARIS, 300 * KM), box((0.5, 50), (2.5, 52)), box((1, 51), (1.5, 51.3)),
                   box((1.7, 50.8), (2, 51)), circle((1.6, 51.05), 40 * KM)]:
        assert found(cities, geo_within(region))[-1:] == [(17, 1.0)], region
    assert found(cities, geo_within(box((1.4, 51), (1.7, 51.3)))) == []  # between them


def test_values_that_are_no_geojson_point_are_never_found(cities):
    """Legacy pairs, coordinates out of range or not numbers, other GeoJSON types, strings: a
    region around where they would be finds none of them, and the whole earth neither."""
    regions = [circle(PARIS, 20_100 * KM), box((-179.9, -89.9), (179.9, 89.9)),
               polygon(ring((-179.9, -89.9), (179.9, -89.9), (179.9, 89.9), (-179.9, 89.9))),
               circle(PARIS, 200 * KM), box((1, 47), (4, 50)), circle((0, 0), 200 * KM),
               box((-179.9, 0), (179.9, 20)), box((170, 0), (-170, 20)),
               polygon(ring((1, 47), (4, 47), (4, 50), (1, 50)))]
    for region in regions:
        expected = within_scores(CITIES, "location", region)
        assert set(expected) <= set(LOCATED)
        assert found_ids(cities, geo_within(region)) == sorted(expected), region
    assert found_ids(cities, geo_within(box((1, 47), (4, 50)))) == [1, 12]
    assert found_ids(cities, geo_within(regions[0])) == LOCATED
    assert search_meta(cities, "cities", near((0, 0), 1 * KM), count={"type": "total"}) == \
        [{"count": {"total": len(LOCATED)}}]


def test_dynamic_mappings_hold_no_geo(cities):
    everything = circle(PARIS, 20_100 * KM)
    assert found(cities, geo_within(everything), index="dynamic") == []
    assert found(cities, near((10, 50), 1000 * KM), index="dynamic") == []
    # A dynamic root's sub-documents are dynamic too, whatever the root maps by name.
    assert found(cities, geo_within(everything, "airport.location"), index="dynamic_root") == []
    assert found(cities, near((10, 50), 1000 * KM, "airport.location"),
                 index="dynamic_root") == []
    # The strings are text there, as ever.
    assert found_ids(cities, text("capital", "category"), index="dynamic") == \
        sorted(CATEGORY.text("capital"))


def test_a_geo_field_under_a_document_field(cities):
    assert found(cities, geo_within(circle(PARIS, 50 * KM), "airport.location")) == [(1, 1.0)]
    assert found_ids(cities, geo_within(DATELINE, "airport.location")) == [8]  # Nadi
    assert found_ids(cities, geo_within(box((-180, -90), (180, 90)), "airport.location")) == \
        WITH_AIRPORTS
    # London's airports are an array of sub-documents: Gatwick alone is in that box.
    assert found(cities, geo_within(box((-0.3, 51.1), (-0.1, 51.2)), "airport.location")) == \
        [(2, 1.0)]
    assert found(cities, geo_within(circle((-0.2, 51.3), 30 * KM), "airport.location")) == \
        [(2, 1.0)]  # Heathrow 26 km, Gatwick 16 km
    assert found(cities, geo_within(box((-0.3, 51.1), (-0.1, 51.2)))) == []
    # "airport" is a document, no point.
    assert found(cities, geo_within(circle(PARIS, 50 * KM), "airport")) == []


def test_several_paths_score_one_for_each_path_with_a_point_inside(cities):
    paths = ["location", "airport.location"]
    for region in [circle(PARIS, 50 * KM), circle(PARIS, 400 * KM), EUROPE, DATELINE,
                   polygon(FRANCE), multi_polygon([FRANCE], [JAPAN]),
                   box((176, -20), (178, -16))]:
        expected = within_scores(CITIES, paths, region)
        assert expected, region
        assert_same(found(cities, geo_within(region, paths)), ranked(expected, CITIES))
    # Paris and its airport are both within 50 km; Versailles has no airport.
    assert found(cities, geo_within(circle(PARIS, 50 * KM), paths)) == [(1, 2.0), (12, 1.0)]
    # Nadi's airport is in that box, Suva is not: the path that matched does not matter.
    assert found(cities, geo_within(box((176, -20), (178, -16)), paths)) == [(8, 1.0)]


def test_boost_multiplies_and_constant_replaces_the_score(cities):
    paths = ["location", "airport.location"]
    region = circle(PARIS, 400 * KM)
    base = within_scores(CITIES, paths, region)
    assert_same(found(cities, geo_within(region, paths, score={"boost": {"value": 3}})),
                ranked({i: 3 * s for i, s in base.items()}, CITIES))
    assert_same(found(cities, geo_within(region, paths, score={"constant": {"value": 0.5}})),
                ranked({i: 0.5 for i in base}, CITIES))


# --- near: pivot / (pivot + meters to the nearest point) -----------------------------------

NEAR = [  # origin, pivot, path
    ((10, 50), 100 * KM, "location"),
    ((2.5, 48), 10 * KM, "location"),  # Paris is 96 km away, Versailles 85 km
    ((1.0, 51.5), 50 * KM, "location"),  # the ferry's nearest point is Dover, not Calais
    ((-170, -15), 500 * KM, "location"),  # Apia, then across the antimeridian to Fiji
    ((179.9, -18), 1 * KM, "location"),
    ((0, 0), 1000 * KM, "location"),
    ((-100, -80), 20_000 * KM, "location"),
    ((139, 36), 2.5, "location"),
    ((2.5, 48), 10 * KM, ["location", "airport.location"]),
    ((176, -18), 100 * KM, ["location", "airport.location"]),
    ((-74, 41.5), 500 * KM, "airport.location"),
    ((0.2, 50.9), 20 * KM, "airport.location"),  # London by Gatwick, the nearer of its two
]


@pytest.mark.parametrize("origin,pivot,path", NEAR, ids=[str(n) for n in range(len(NEAR))])
def test_near_scores_pivot_over_pivot_plus_the_distance_to_the_nearest_point(cities, origin,
                                                                            pivot, path):
    expected = near_scores(CITIES, path, origin, pivot)
    located = {d["_id"] for d in CITIES if any(points(d, p) for p in as_list(path))}
    assert set(expected) == located, "every document with a point matches"
    got = found(cities, near(origin, pivot, path))
    assert_same(got, ranked(expected, CITIES))
    if path == "location":
        assert_same(found(cities, near(origin, pivot, path), index="no_shapes"), got)
        assert_same(found(cities, near(origin, pivot, path), index="dynamic_root"), got)


def test_near_ranks_the_nearest_first_across_the_antimeridian(cities):
    # Taveuni (58 km) and Suva (252 km) across the antimeridian, Nuku'alofa (645 km), Apia.
    assert ids(found(cities, near((-179.5, -17), 100 * KM)))[:4] == [21, 8, 10, 9]
    # Apia (136 km), Taveuni (812 km), Nuku'alofa (827 km), then Suva (1024 km).
    assert ids(found(cities, near((-173, -14), 100 * KM)))[:4] == [9, 21, 10, 8]
    # At the origin, the distance is 0 and the score 1.
    assert found(cities, near(PARIS, 1000 * KM))[0] == (1, pytest.approx(1.0, rel=1e-6))
    got = dict(found(cities, near((2.5, 48), 10 * KM)))
    assert got[1] == pytest.approx(10 * KM / (10 * KM + haversine((2.5, 48), PARIS)), rel=1e-6)
    # The ferry scores by Dover (46.8 km away), not Calais (85.4 km away); London is 78.1 km.
    got = found(cities, near((1.0, 51.5), 50 * KM))
    assert ids(got)[:2] == [17, 2]
    assert dict(got)[17] == pytest.approx(50 / (50 + 46.765), rel=1e-4)


def test_near_boost_constant_and_compound(cities):
    origin, pivot = (10, 50), 300 * KM
    base = near_scores(CITIES, "location", origin, pivot)
    assert_same(found(cities, near(origin, pivot, score={"boost": {"value": 2}})),
                ranked({i: 2 * s for i, s in base.items()}, CITIES))
    assert_same(found(cities, near(origin, pivot, score={"constant": {"value": 3}})),
                ranked({i: 3.0 for i in base}, CITIES))
    port = CATEGORY.text("port")
    assert_same(found(cities, compound(must=[text("port", "category")],
                                       should=[near(origin, pivot)])),
                ranked({i: s + base[i] for i, s in port.items()}, CITIES))
    # Near within a region: the distance ranks what geoWithin keeps.
    europe = within_scores(CITIES, "location", EUROPE)
    assert_same(found(cities, compound(filter_=[geo_within(EUROPE)], must=[near(origin, pivot)])),
                ranked({i: base[i] for i in europe}, CITIES))


# --- compound, $searchMeta -------------------------------------------------------------------

def test_compound_combines_geo_within_with_text(cities):
    capital, island = CATEGORY.text("capital"), CATEGORY.text("island")
    europe = within_scores(CITIES, "location", EUROPE)
    paris = within_scores(CITIES, "location", circle(PARIS, 400 * KM))
    dateline = within_scores(CITIES, "location", DATELINE)
    cases = [
        # must: both match, the scores add up.
        (compound(must=[geo_within(EUROPE), text("capital", "category")]),
         {i: s + 1 for i, s in capital.items() if i in europe}),
        # filter: text's scores alone, for the documents in the region.
        (compound(must=[text("island", "category")], filter_=[geo_within(DATELINE)]),
         {i: s for i, s in island.items() if i in dateline}),
        # mustNot: the capitals further than 400 km from Paris (or nowhere at all).
        (compound(must=[text("capital", "category")],
                  must_not=[geo_within(circle(PARIS, 400 * KM))]),
         {i: s for i, s in capital.items() if i not in paris}),
        # should: 1 for each region, plus text.
        (compound(should=[geo_within(circle(PARIS, 300 * KM)), geo_within(EUROPE)]),
         add(within_scores(CITIES, "location", circle(PARIS, 300 * KM)), europe)),
        (compound(should=[geo_within(DATELINE), text("capital", "category")],
                  minimumShouldMatch=2), {i: capital[i] + 1 for i in dateline if i in capital}),
    ]
    assert {8, 9, 10, 21} <= set(island) and {1, 2, 19, 22} <= set(capital)
    for operator, expected in cases:
        assert expected, operator
        assert_same(found(cities, operator), ranked(expected, CITIES))


def test_search_meta_counts_the_documents_with_a_point_in_the_region(cities):
    for operator, n in [(geo_within(circle(SUVA, 1200 * KM)), 4), (geo_within(EUROPE), 6),
                        (geo_within(circle(PARIS, 20_100 * KM)), len(LOCATED)),
                        (geo_within(DATELINE, ["location", "airport.location"]), 4),
                        (near((0, 0), 1 * KM), len(LOCATED)),
                        (near((0, 0), 1 * KM, "airport.location"), len(WITH_AIRPORTS)),
                        (compound(must=[geo_within(EUROPE), text("capital", "category")]), 3),
                        (geo_within(box((178.5, -90), (-179, 16))), 1)]:
        assert search_meta(cities, "cities", operator, count={"type": "total"}) == \
            [{"count": {"total": n}}], operator


# --- writes and restarts ---------------------------------------------------------------------

def test_writes_move_documents_in_and_out_of_regions(db):
    docs = {d["_id"]: copy.deepcopy(d) for d in CITIES[:3]}  # Paris, London, New York
    db.cities.insert_many(copy.deepcopy(list(docs.values())))
    create_ready(db, "cities", static(location=GEO))
    region, origin = circle(PARIS, 400 * KM), (10, 50)

    def check(expected):
        current = list(docs.values())
        assert found_ids(db, geo_within(region)) == expected
        assert sorted(within_scores(current, "location", region)) == expected
        assert_same(found(db, near(origin, 100 * KM)),
                    ranked(near_scores(current, "location", origin, 100 * KM), current))
        assert search_meta(db, "cities", geo_within(region), count={"type": "total"}) == \
            [{"count": {"total": len(expected)}}]

    check([1, 2])
    # Paris moves to Tokyo: out of the circle.
    docs[1]["location"] = point(139.6917, 35.6895)
    db.cities.update_one({"_id": 1}, {"$set": {"location": point(139.6917, 35.6895)}})
    check([2])
    # New York moves to Lyon: in.
    docs[3]["location"] = point(4.8357, 45.7640)
    db.cities.update_one({"_id": 3}, {"$set": {"location.coordinates": [4.8357, 45.7640]}})
    check([2, 3])
    docs[4] = {"_id": 4, "location": [point(151.2, -33.9), point(2.1301, 48.8049)]}
    db.cities.insert_one(copy.deepcopy(docs[4]))
    check([2, 3, 4])
    # London becomes a legacy pair, which is no point.
    docs[2] = {"_id": 2, "location": [-0.1276, 51.5072]}
    db.cities.replace_one({"_id": 2}, docs[2])
    check([3, 4])
    del docs[3]
    db.cities.delete_one({"_id": 3})
    check([4])
    docs[4]["location"].pop()
    db.cities.update_one({"_id": 4}, {"$pop": {"location": 1}})
    check([])
    docs[1]["location"] = point(2.3522, 48.8566)
    db.cities.update_one({"_id": 1}, {"$set": {"location": point(2.3522, 48.8566)}})
    check([1])
    del docs[1]["location"]
    db.cities.update_one({"_id": 1}, {"$unset": {"location": ""}})
    check([])


QUERIES = [geo_within(circle(PARIS, 400 * KM)), geo_within(DATELINE),
           geo_within(polygon(FRANCE, AROUND_PARIS)), geo_within(EUROPE, ["location",
                                                                          "airport.location"]),
           near((-170, -15), 500 * KM), near((2.5, 48), 10 * KM, ["location", "airport.location"])]


def test_geo_fields_answer_the_same_after_a_restart_and_a_crash(own_server):
    later = {"_id": 40, "name": "Noumea", "category": "island capital",
             "location": point(166.4572, -22.2758)}
    docs = CITIES + [later]
    with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as client:
        db = client[DATABASE]
        db.cities.insert_many(copy.deepcopy(CITIES))
        create_ready(db, "cities", INDEXES["default"])
        db.cities.insert_one(copy.deepcopy(later))
        assert 40 in ids(found(db, geo_within(box((160, -25), (-170, -10)))))
        before = [found(db, operator) for operator in QUERIES]
    for got, operator in zip(before, QUERIES):
        (name, spec), = operator.items()
        if name == "near":
            expected = near_scores(docs, spec["path"], spec["origin"]["coordinates"], spec["pivot"])
        else:
            region = {k: v for k, v in spec.items() if k != "path"}
            expected = within_scores(docs, spec["path"], region)
        assert_same(got, ranked(expected, docs))
    for crash in (False, True):
        own_server.restart(crash=crash)
        with pymongo.MongoClient(own_server.uri(), **CLIENT_OPTIONS) as client:
            db = client[DATABASE]
            wait_ready(db, "cities")
            for operator, want in zip(QUERIES, before):
                assert_same(found(db, operator), want)


# --- errors ------------------------------------------------------------------------------------

def test_geo_definitions_and_their_errors(db):
    db.create_collection("docs")
    cases = [
        (static(location={"type": "geo", "indexShapes": True}), NOT_IMPLEMENTED, "indexShapes"),
        (static(location={"type": "geo", "indexShapes": "yes"}), BAD_VALUE, "indexShapes"),
        (static(location={"type": "geo", "bogus": 1}), BAD_VALUE, "bogus"),
        (static(location={"type": "geo", "analyzer": "lucene.standard"}), BAD_VALUE, "analyzer"),
        (static(a=document(location={"type": "geo", "indexShapes": True})), NOT_IMPLEMENTED,
         "indexShapes"),
    ]
    assert_errors(cases, lambda definition: create_index(db, "docs", definition))
    assert list_indexes(db, "docs") == []


GOOD_CIRCLE = circle(PARIS, 1000)


def test_malformed_geo_within_answers_bad_value(cities):
    def circle_with(**fields):
        return geo_within({"circle": {"center": point(*PARIS), "radius": 1000, **fields}})

    def center(value):
        return geo_within({"circle": {"center": value, "radius": 1000}})

    def box_with(**corners):
        return geo_within({"box": {"bottomLeft": point(-10, 35), "topRight": point(20, 60),
                                   **corners}})

    def geometry(value):
        return geo_within({"geometry": value})

    def without(spec, key):
        return {k: v for k, v in spec.items() if k != key}

    cases = [
        ({"geoWithin": GOOD_CIRCLE}, BAD_VALUE, "path"),
        ({"geoWithin": {"path": "location"}}, BAD_VALUE, ""),
        (geo_within({**GOOD_CIRCLE, **EUROPE}), BAD_VALUE, ""),
        (geo_within({**EUROPE, **polygon(FRANCE)}), BAD_VALUE, ""),
        (geo_within(GOOD_CIRCLE, bogus=1), BAD_VALUE, "bogus"),
        (geo_within(GOOD_CIRCLE, path=5), BAD_VALUE, ""),
        # circle
        (geo_within({"circle": without(GOOD_CIRCLE["circle"], "center")}), BAD_VALUE, "center"),
        (geo_within({"circle": without(GOOD_CIRCLE["circle"], "radius")}), BAD_VALUE, "radius"),
        (circle_with(radius=-1), BAD_VALUE, "radius"),
        (circle_with(radius="1000"), BAD_VALUE, "radius"),
        (circle_with(foo=1), BAD_VALUE, "foo"),
        (geo_within({"circle": [point(*PARIS), 1000]}), BAD_VALUE, "circle"),
        (center({"type": "LineString", "coordinates": [[0, 0], [1, 1]]}), BAD_VALUE, "center"),
        (center({"type": "point", "coordinates": [0, 0]}), BAD_VALUE, "center"),
        (center({"coordinates": [0, 0]}), BAD_VALUE, "center"),
        (center({"type": "Point"}), BAD_VALUE, "center"),
        (center({"type": "Point", "coordinates": [0]}), BAD_VALUE, "center"),
        (center({"type": "Point", "coordinates": [1, 2, 3]}), BAD_VALUE, "center"),
        (center({"type": "Point", "coordinates": ["0", "0"]}), BAD_VALUE, "center"),
        (center(point(181, 0)), BAD_VALUE, "center"),
        (center(point(-180.5, 0)), BAD_VALUE, "center"),
        (center(point(0, 91)), BAD_VALUE, "center"),
        (center(point(0, -90.5)), BAD_VALUE, "center"),
        (center([2.3522, 48.8566]), BAD_VALUE, "center"),
        (center("Paris"), BAD_VALUE, "center"),
        # box
        (geo_within({"box": {"bottomLeft": point(-10, 35)}}), BAD_VALUE, "topRight"),
        (geo_within({"box": {"topRight": point(20, 60)}}), BAD_VALUE, "bottomLeft"),
        (box_with(bottomLeft=point(-10, 95)), BAD_VALUE, "bottomLeft"),
        (box_with(bottomLeft=[-10, 35]), BAD_VALUE, "bottomLeft"),
        (box_with(topRight={"type": "Point", "coordinates": [20]}), BAD_VALUE, "topRight"),
        (box_with(topRight=point(200, 60)), BAD_VALUE, "topRight"),
        (box_with(bottomLeft=point(-10, 61)), BAD_VALUE, ""),  # its lat above topRight's
        (box_with(foo=1), BAD_VALUE, "foo"),
        # geometry
        (geometry(point(*PARIS)), BAD_VALUE, "geometry"),
        (geometry({"type": "LineString", "coordinates": [[0, 0], [1, 1]]}), BAD_VALUE,
         "geometry"),
        (geometry({"type": "Polygon"}), BAD_VALUE, "geometry"),
        (geometry({"type": "Polygon", "coordinates": []}), BAD_VALUE, "geometry"),
        (geometry({"coordinates": [FRANCE]}), BAD_VALUE, "geometry"),
        (geometry({"type": "polygon", "coordinates": [FRANCE]}), BAD_VALUE, "geometry"),
        (geometry({"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [0, 0]]]}), BAD_VALUE,
         "geometry"),  # three positions
        (geometry({"type": "Polygon", "coordinates": [FRANCE[:-1]]}), BAD_VALUE,
         "geometry"),  # not closed
        (geometry({"type": "Polygon", "coordinates": [FRANCE, AROUND_PARIS[:-1]]}), BAD_VALUE,
         "geometry"),  # a hole not closed
        (geometry({"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 95], [0, 0]]]}),
         BAD_VALUE, "geometry"),
        (geometry({"type": "Polygon", "coordinates": [[[0, 0], [1, 0], ["1", 1], [0, 0]]]}),
         BAD_VALUE, "geometry"),
        (geometry({"type": "Polygon", "coordinates": FRANCE}), BAD_VALUE, "geometry"),
        (geometry({"type": "MultiPolygon", "coordinates": [FRANCE]}), BAD_VALUE, "geometry"),
        (geometry({"type": "MultiPolygon", "coordinates": [[FRANCE], [JAPAN[:-1]]]}), BAD_VALUE,
         "geometry"),
        (geometry([FRANCE]), BAD_VALUE, "geometry"),
    ]
    assert_errors(cases, lambda operator: found(cities, operator))
    assert_errors(cases[:3], lambda operator: search_meta(cities, "cities", operator))
    assert_errors([(compound(filter_=[operator]), code, words) for operator, code, words in cases],
                  lambda operator: found(cities, operator))


def test_malformed_geo_near_answers_bad_value_and_geo_shape_not_implemented(cities):
    def near_spec(**fields):
        return {"near": {"path": "location", **fields}}

    cases = [
        (near_spec(origin=point(*PARIS)), BAD_VALUE, "pivot"),
        (near(PARIS, 0), BAD_VALUE, "pivot"),
        (near(PARIS, -1000), BAD_VALUE, "pivot"),
        (near(PARIS, "1000"), BAD_VALUE, "pivot"),
        (near_spec(origin=point(200, 0), pivot=1000), BAD_VALUE, "origin"),
        (near_spec(origin=point(0, -91), pivot=1000), BAD_VALUE, "origin"),
        (near_spec(origin={"type": "Polygon", "coordinates": [FRANCE]}, pivot=1000), BAD_VALUE,
         "origin"),
        (near_spec(origin={"type": "Point", "coordinates": [1, 2, 3]}, pivot=1000), BAD_VALUE,
         "origin"),
        (near(PARIS, 1000, bogus=1), BAD_VALUE, "bogus"),
    ]
    assert_errors(cases, lambda operator: found(cities, operator))
    geo_shape = {"geoShape": {"path": "location", "relation": "within",
                              "geometry": polygon(FRANCE)["geometry"]}}
    assert_errors([(geo_shape, NOT_IMPLEMENTED, "geoShape"),
                   (compound(must=[geo_shape]), NOT_IMPLEMENTED, "geoShape")],
                  lambda operator: found(cities, operator))
    # Distances are never near numbers, nor numbers near points.
    assert found(cities, {"near": {"path": "location", "origin": 5, "pivot": 1}}) == []
    assert found(cities, near(PARIS, 1000, "name")) == []
