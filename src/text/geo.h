// The geometry of Atlas Search's geo fields on points: GeoJSON points as a search index holds
// them, great-circle distances, and the regions geoWithin asks for (a circle, a box, polygons),
// as Lucene's LatLonPoint queries test them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "bson/value.h"

namespace quarry::text {

struct GeoPoint {
  double lng = 0;
  double lat = 0;
};

// `value` as a GeoJSON Point ({type: "Point", coordinates: [lng, lat]} in range), or none.
std::optional<GeoPoint> GeoPointOf(bson::ValueView value);

// The great-circle distance in meters (haversine, on Lucene's mean earth radius).
double HaversineMeters(GeoPoint a, GeoPoint b);

// A region of geoWithin: the points within `radius_meters` of a center, a box between two
// corners (across the antimeridian when the bottom-left's longitude is the greater), or
// polygons with holes, whose edges are straight in longitude and latitude.
class GeoRegion {
 public:
  // geoWithin's region option `name` (circle, box or geometry) given `value`; BadValue naming
  // `at` when it is malformed.
  static StatusWith<GeoRegion> Parse(std::string_view name, bson::ValueView value,
                                     const std::string& at);

  bool Contains(GeoPoint point) const;

 private:
  enum class Kind { kCircle, kBox, kPolygons };
  using Ring = std::vector<GeoPoint>;
  using Polygon = std::vector<Ring>;  // the outer ring, then holes

  Kind kind_ = Kind::kCircle;
  GeoPoint center_;
  double radius_meters_ = 0;
  GeoPoint bottom_left_, top_right_;
  std::vector<Polygon> polygons_;
};

}  // namespace quarry::text
