#include "text/geo.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "bson/json.h"
#include "text/inverted_index.h"
#include "text/search_operator.h"

namespace quarry::text {
namespace {

GeoRegion Region(std::string_view name, std::string_view json) {
  bson::Document holder = bson::FromJson(R"({"r": )" + std::string(json) + "}").value();
  StatusWith<GeoRegion> region = GeoRegion::Parse(name, holder.view().Get("r"), "r");
  EXPECT_TRUE(region.ok()) << json << ": " << region.status().ToString();
  return std::move(region).value();
}

ErrorCode RegionError(std::string_view name, std::string_view json) {
  bson::Document holder = bson::FromJson(R"({"r": )" + std::string(json) + "}").value();
  StatusWith<GeoRegion> region = GeoRegion::Parse(name, holder.view().Get("r"), "r");
  return region.ok() ? ErrorCode::kOk : region.status().code();
}

TEST(GeoTest, PointsAreGeoJsonPointsInRange) {
  auto point = [](std::string_view json) {
    bson::Document holder = bson::FromJson(R"({"p": )" + std::string(json) + "}").value();
    return GeoPointOf(holder.view().Get("p"));
  };
  ASSERT_TRUE(point(R"({"type": "Point", "coordinates": [2.35, 48.86]})").has_value());
  EXPECT_DOUBLE_EQ(point(R"({"type": "Point", "coordinates": [2.35, 48.86]})")->lat, 48.86);
  EXPECT_TRUE(point(R"({"type": "Point", "coordinates": [180, -90]})").has_value());
  EXPECT_FALSE(point(R"({"type": "Point", "coordinates": [181, 0]})").has_value());
  EXPECT_FALSE(point(R"({"type": "Point", "coordinates": [0, 91]})").has_value());
  EXPECT_FALSE(point(R"({"type": "Point", "coordinates": [1, 2, 3]})").has_value());
  EXPECT_FALSE(point(R"({"type": "LineString", "coordinates": [[1, 2], [3, 4]]})").has_value());
  EXPECT_FALSE(point(R"([2.35, 48.86])").has_value());
}

TEST(GeoTest, HaversineOnLucenesEarth) {
  const GeoPoint paris{.lng = 2.3522, .lat = 48.8566}, london{.lng = -0.1276, .lat = 51.5072};
  EXPECT_NEAR(HaversineMeters(paris, london), 343'900, 1'000);
  EXPECT_DOUBLE_EQ(HaversineMeters(paris, paris), 0);
  // A quarter of a meridian: a quarter of the circumference of Lucene's mean radius.
  EXPECT_NEAR(HaversineMeters({.lng = 0, .lat = 0}, {.lng = 0, .lat = 90}),
              6'371'008.7714 * 3.14159265358979 / 2, 1e-3);
}

TEST(GeoTest, RegionsContainTheirPoints) {
  const GeoRegion circle =
      Region("circle", R"({"center": {"type": "Point", "coordinates": [0, 0]}, "radius": 200000})");
  EXPECT_TRUE(circle.Contains({.lng = 1, .lat = 1}));   // ~157 km
  EXPECT_FALSE(circle.Contains({.lng = 2, .lat = 0}));  // ~222 km
  const GeoRegion dateline =
      Region("box", R"({"bottomLeft": {"type": "Point", "coordinates": [170, -25]},
                                               "topRight": {"type": "Point", "coordinates": [-170, -10]}})");
  EXPECT_TRUE(dateline.Contains({.lng = 178.4, .lat = -18.1}));
  EXPECT_TRUE(dateline.Contains({.lng = -172.1, .lat = -13.8}));
  EXPECT_FALSE(dateline.Contains({.lng = 0, .lat = -15}));
  EXPECT_FALSE(dateline.Contains({.lng = 178, .lat = -30}));
  const GeoRegion holed = Region("geometry", R"({"type": "Polygon", "coordinates": [
      [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]], [[4, 4], [6, 4], [6, 6], [4, 6], [4, 4]]]})");
  EXPECT_TRUE(holed.Contains({.lng = 2, .lat = 2}));
  EXPECT_FALSE(holed.Contains({.lng = 5, .lat = 5}));
  EXPECT_FALSE(holed.Contains({.lng = 11, .lat = 5}));
  const GeoRegion two = Region("geometry", R"({"type": "MultiPolygon", "coordinates": [
      [[[0, 0], [1, 0], [1, 1], [0, 0]]], [[[20, 20], [21, 20], [21, 21], [20, 21], [20, 20]]]]})");
  EXPECT_TRUE(two.Contains({.lng = 20.5, .lat = 20.5}));
  EXPECT_TRUE(two.Contains({.lng = 0.8, .lat = 0.2}));
  EXPECT_FALSE(two.Contains({.lng = 0.2, .lat = 0.8}));
}

TEST(GeoTest, MalformedRegionsAreBadValue) {
  const std::string_view point = R"({"type": "Point", "coordinates": [0, 0]})";
  EXPECT_EQ(RegionError("circle", R"({"radius": 1})"), ErrorCode::kBadValue);
  EXPECT_EQ(RegionError("circle", R"({"center": [0, 0], "radius": 1})"), ErrorCode::kBadValue);
  EXPECT_EQ(RegionError("circle", R"({"center": )" + std::string(point) + R"(, "radius": -1})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(RegionError("circle", R"({"center": )" + std::string(point) + R"(, "r": 1})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(RegionError("box", R"({"bottomLeft": {"type": "Point", "coordinates": [0, 10]},
                                    "topRight": {"type": "Point", "coordinates": [1, 5]}})"),
            ErrorCode::kBadValue);
  EXPECT_EQ(RegionError("box", R"({"bottomLeft": )" + std::string(point) + "}"),
            ErrorCode::kBadValue);
  EXPECT_EQ(RegionError("geometry", point), ErrorCode::kBadValue);
  EXPECT_EQ(
      RegionError("geometry", R"({"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [0, 0]]]})"),
      ErrorCode::kBadValue);
  EXPECT_EQ(
      RegionError("geometry",
                  R"({"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1]]]})"),
      ErrorCode::kBadValue);
  EXPECT_EQ(RegionError("geometry", R"({"type": "MultiPolygon", "coordinates": []})"),
            ErrorCode::kBadValue);
}

TEST(GeoTest, GeoWithinAndNearOverAnIndexOfPoints) {
  FullTextMapping mapping;
  mapping.root.fields["loc"].value_kinds = kGeoPoints;
  InvertedIndex index;
  for (const auto& [label, json] : std::vector<std::pair<std::uint32_t, std::string>>{
           {0, R"({"loc": {"type": "Point", "coordinates": [2.35, 48.86]}})"},
           {1, R"({"loc": [{"type": "Point", "coordinates": [139.7, 35.7]},
                          {"type": "Point", "coordinates": [-0.13, 51.51]}]})"},
           {2, R"({"loc": [2.35, 48.86]})"},
           {3, R"({"other": {"type": "Point", "coordinates": [2.35, 48.86]}})"}}) {
    bson::Document document = bson::FromJson(json).value();
    index.Set(label, mapping, document.view());
  }
  auto run = [&](std::string_view json) {
    bson::Document spec = bson::FromJson(json).value();
    const bson::Element first = *spec.view().begin();
    StatusWith<SearchOperator> op = ParseSearchOperator(first.key, first.value);
    EXPECT_TRUE(op.ok()) << op.status().ToString();
    std::map<std::uint32_t, double> out;
    if (!op.ok()) return out;
    const StatusWith<SearchScores> scores = EvaluateSearch(op.value(), index, mapping);
    for (const auto& [label, score] : scores.value()) out[label] = score;
    return out;
  };
  const auto within = run(R"({"geoWithin": {"path": "loc", "circle": {
      "center": {"type": "Point", "coordinates": [2.35, 48.86]}, "radius": 400000}}})");
  EXPECT_EQ(within, (std::map<std::uint32_t, double>{{0, 1}, {1, 1}}));
  const auto near = run(R"({"near": {"path": "loc", "pivot": 100000,
      "origin": {"type": "Point", "coordinates": [2.35, 48.86]}}})");
  ASSERT_EQ(near.size(), 2u);
  EXPECT_DOUBLE_EQ(near.at(0), 1);
  const double london = HaversineMeters({.lng = 2.35, .lat = 48.86}, {.lng = -0.13, .lat = 51.51});
  EXPECT_DOUBLE_EQ(near.at(1), 100000 / (100000 + london));
}

}  // namespace
}  // namespace quarry::text
