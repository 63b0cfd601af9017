// Binding points to an element's local coordinate array (carrier body coordinates kept
// contiguous; a coordinate listed twice is harmless: gathers copy, scatters add).
#include "elements/point.hpp"

namespace gmbd::elements {

int LocalCoordinates::offset_of(int global) const {
  for (size_t i = 0; i < global_.size(); ++i)
    if (global_[i] == global) return static_cast<int>(i);
  return -1;
}

int LocalCoordinates::add_coordinate(int global) {
  const int existing = offset_of(global);
  if (existing >= 0) return existing;
  global_.push_back(global);
  return static_cast<int>(global_.size()) - 1;
}

int LocalCoordinates::add_body(const Body& body) {
  const int first = offset_of(body.first);
  bool contiguous = first >= 0 && first + body.size() <= static_cast<int>(global_.size());
  for (int i = 0; contiguous && i < body.size(); ++i)
    contiguous = global_[static_cast<size_t>(first + i)] == body.first + i;
  if (contiguous) return first;
  const int offset = static_cast<int>(global_.size());
  for (int i = 0; i < body.size(); ++i) global_.push_back(body.first + i);
  return offset;
}

PointBinding LocalCoordinates::bind(const PointDef& point, const std::vector<Body>& bodies,
                                    const Ground& ground) {
  PointBinding b;
  b.ground = &ground;
  b.local = point.local;
  b.direction = point.direction;
  if (point.body >= 0) {
    b.body = &bodies[static_cast<size_t>(point.body)];
    b.offset = add_body(*b.body);
  }
  if (point.slide >= 0) b.slide_offset = add_coordinate(point.slide);
  b.ground_position = ground.origin + ground.rotation * point.local;
  return b;
}

}  // namespace gmbd::elements
