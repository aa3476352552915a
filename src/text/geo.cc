#include "text/geo.h"

#include <cmath>
#include <numbers>
#include <utility>

namespace quarry::text {
namespace {

// Lucene's GeoUtils.EARTH_MEAN_RADIUS_METERS.
constexpr double kEarthRadiusMeters = 6'371'008.7714;

Status Bad(std::string message) { return Status(ErrorCode::kBadValue, std::move(message)); }

double Radians(double degrees) { return degrees * std::numbers::pi / 180; }

std::optional<GeoPoint> Position(bson::ValueView value) {
  if (value.type() != bson::Type::kArray) return std::nullopt;
  std::vector<double> numbers;
  for (const bson::Element& e : value.Document()) {
    if (!e.value.IsNumber() || e.value.type() == bson::Type::kDecimal128) return std::nullopt;
    numbers.push_back(e.value.AsDouble());
  }
  if (numbers.size() != 2 || !(numbers[0] >= -180 && numbers[0] <= 180) ||
      !(numbers[1] >= -90 && numbers[1] <= 90)) {
    return std::nullopt;
  }
  return GeoPoint{.lng = numbers[0], .lat = numbers[1]};
}

StatusWith<GeoPoint> PointAt(bson::ValueView value, const std::string& at) {
  std::optional<GeoPoint> point = GeoPointOf(value);
  if (!point.has_value()) {
    return Bad("\"" + at + "\" must be a GeoJSON Point: {type: \"Point\", coordinates: [<lng " +
               "-180..180>, <lat -90..90>]}");
  }
  return *point;
}

// GeoJSON's linear ring: four or more positions, the last the first again.
StatusWith<std::vector<GeoPoint>> RingAt(bson::ValueView value, const std::string& at) {
  if (value.type() != bson::Type::kArray)
    return Bad("\"" + at + "\" must be an array of positions");
  std::vector<GeoPoint> ring;
  for (const bson::Element& e : value.Document()) {
    std::optional<GeoPoint> point = Position(e.value);
    if (!point.has_value()) return Bad("\"" + at + "\" holds a position that is not [lng, lat]");
    ring.push_back(*point);
  }
  if (ring.size() < 4) return Bad("\"" + at + "\" must have at least four positions");
  if (ring.front().lng != ring.back().lng || ring.front().lat != ring.back().lat) {
    return Bad("\"" + at + "\" must end where it starts");
  }
  return ring;
}

StatusWith<std::vector<std::vector<GeoPoint>>> PolygonAt(bson::ValueView value,
                                                         const std::string& at) {
  if (value.type() != bson::Type::kArray || value.Document().empty()) {
    return Bad("\"" + at + "\" must be a non-empty array of rings");
  }
  std::vector<std::vector<GeoPoint>> polygon;
  std::size_t i = 0;
  for (const bson::Element& e : value.Document()) {
    QUARRY_ASSIGN_OR_RETURN(std::vector<GeoPoint> ring,
                            RingAt(e.value, at + "[" + std::to_string(i++) + "]"));
    polygon.push_back(std::move(ring));
  }
  return polygon;
}

// Whether `point` is inside `ring` by the crossing count, edges straight in degrees.
bool InRing(const std::vector<GeoPoint>& ring, GeoPoint point) {
  bool inside = false;
  for (std::size_t i = 0, j = ring.size() - 1; i < ring.size(); j = i++) {
    const GeoPoint& a = ring[i];
    const GeoPoint& b = ring[j];
    if ((a.lat > point.lat) != (b.lat > point.lat) &&
        point.lng < (b.lng - a.lng) * (point.lat - a.lat) / (b.lat - a.lat) + a.lng) {
      inside = !inside;
    }
  }
  return inside;
}

}  // namespace

std::optional<GeoPoint> GeoPointOf(bson::ValueView value) {
  if (value.type() != bson::Type::kDocument) return std::nullopt;
  const bson::DocumentView point = value.Document();
  const bson::ValueView type = point.Get("type");
  if (type.type() != bson::Type::kString || type.String() != "Point") return std::nullopt;
  return Position(point.Get("coordinates"));
}

double HaversineMeters(GeoPoint a, GeoPoint b) {
  const double dlat = Radians(b.lat - a.lat);
  const double dlng = Radians(b.lng - a.lng);
  const double h =
      std::sin(dlat / 2) * std::sin(dlat / 2) +
      std::cos(Radians(a.lat)) * std::cos(Radians(b.lat)) * std::sin(dlng / 2) * std::sin(dlng / 2);
  return 2 * kEarthRadiusMeters * std::asin(std::sqrt(std::min(1.0, h)));
}

namespace {

// Reads `value`, a document of exactly the two required options `first` and `second`, handing
// each value to its reader with the option's name for its messages.
template <typename ReadFirst, typename ReadSecond>
Status TwoOptions(bson::ValueView value, const std::string& at, std::string_view first,
                  ReadFirst read_first, std::string_view second, ReadSecond read_second) {
  if (value.type() != bson::Type::kDocument) return Bad("\"" + at + "\" must be a document");
  bool has_first = false, has_second = false;
  for (const bson::Element& e : value.Document()) {
    const std::string inner = at + "." + std::string(e.key);
    if (e.key == first) {
      QUARRY_RETURN_IF_ERROR(read_first(e.value, inner));
      has_first = true;
    } else if (e.key == second) {
      QUARRY_RETURN_IF_ERROR(read_second(e.value, inner));
      has_second = true;
    } else {
      return Bad("\"" + inner + "\" is not a known option");
    }
  }
  if (!has_first) return Bad("\"" + at + "." + std::string(first) + "\" is required");
  if (!has_second) return Bad("\"" + at + "." + std::string(second) + "\" is required");
  return Status::OK();
}

}  // namespace

StatusWith<GeoRegion> GeoRegion::Parse(std::string_view name, bson::ValueView value,
                                       const std::string& at) {
  GeoRegion region;
  auto point_into = [](GeoPoint* point) {
    return [point](bson::ValueView v, const std::string& inner) -> Status {
      QUARRY_ASSIGN_OR_RETURN(*point, PointAt(v, inner));
      return Status::OK();
    };
  };
  if (name == "circle") {
    region.kind_ = Kind::kCircle;
    QUARRY_RETURN_IF_ERROR(
        TwoOptions(value, at, "center", point_into(&region.center_), "radius",
                   [&](bson::ValueView v, const std::string& inner) {
                     if (!v.IsNumber() || !(v.AsDouble() >= 0) || !std::isfinite(v.AsDouble())) {
                       return Bad("\"" + inner + "\" must be a non-negative number of meters");
                     }
                     region.radius_meters_ = v.AsDouble();
                     return Status::OK();
                   }));
    return region;
  }
  if (name == "box") {
    region.kind_ = Kind::kBox;
    QUARRY_RETURN_IF_ERROR(TwoOptions(value, at, "bottomLeft", point_into(&region.bottom_left_),
                                      "topRight", point_into(&region.top_right_)));
    if (region.bottom_left_.lat > region.top_right_.lat) {
      return Bad("\"" + at + "\": bottomLeft's latitude must not exceed topRight's");
    }
    return region;
  }
  // geometry: a GeoJSON Polygon or MultiPolygon.
  region.kind_ = Kind::kPolygons;
  if (value.type() != bson::Type::kDocument) return Bad("\"" + at + "\" must be a document");
  const bson::DocumentView geometry = value.Document();
  const bson::ValueView type = geometry.Get("type");
  const bson::ValueView coordinates = geometry.Get("coordinates");
  for (const bson::Element& e : geometry) {
    if (e.key != "type" && e.key != "coordinates") {
      return Bad("\"" + at + "." + std::string(e.key) + "\" is not a known option");
    }
  }
  if (type.type() == bson::Type::kString && type.String() == "Polygon") {
    QUARRY_ASSIGN_OR_RETURN(Polygon polygon, PolygonAt(coordinates, at + ".coordinates"));
    region.polygons_.push_back(std::move(polygon));
    return region;
  }
  if (type.type() == bson::Type::kString && type.String() == "MultiPolygon") {
    if (coordinates.type() != bson::Type::kArray || coordinates.Document().empty()) {
      return Bad("\"" + at + ".coordinates\" must be a non-empty array of polygons");
    }
    std::size_t i = 0;
    for (const bson::Element& e : coordinates.Document()) {
      QUARRY_ASSIGN_OR_RETURN(Polygon polygon,
                              PolygonAt(e.value, at + ".coordinates[" + std::to_string(i++) + "]"));
      region.polygons_.push_back(std::move(polygon));
    }
    return region;
  }
  return Bad("\"" + at + "\" must be a GeoJSON Polygon or MultiPolygon");
}

bool GeoRegion::Contains(GeoPoint point) const {
  switch (kind_) {
    case Kind::kCircle:
      return HaversineMeters(center_, point) <= radius_meters_;
    case Kind::kBox: {
      if (point.lat < bottom_left_.lat || point.lat > top_right_.lat) return false;
      if (bottom_left_.lng <= top_right_.lng) {
        return point.lng >= bottom_left_.lng && point.lng <= top_right_.lng;
      }
      return point.lng >= bottom_left_.lng || point.lng <= top_right_.lng;
    }
    case Kind::kPolygons:
      for (const Polygon& polygon : polygons_) {
        if (!InRing(polygon.front(), point)) continue;
        bool in_hole = false;
        for (std::size_t hole = 1; hole < polygon.size() && !in_hole; ++hole) {
          in_hole = InRing(polygon[hole], point);
        }
        if (!in_hole) return true;
      }
      return false;
  }
  return false;
}

}  // namespace quarry::text
