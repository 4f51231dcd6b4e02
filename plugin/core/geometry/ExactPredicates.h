#pragma once

#include <bdt/core/base/Math.h>

namespace bdt
{

/// 2D double vector (points projected onto a coordinate plane).
using Vec2d = Eigen::Vector2d;

/// Exact orientation of four points: the sign (-1, 0 or +1) of det[b − a, c − a, d − a], i.e. of
/// ((b − a) × (c − a)) · (d − a). +1 when `inD` lies on the side of the plane (a, b, c) that the normal of
/// the counter-clockwise triangle a, b, c points to, 0 when the four points are coplanar.
///
/// The sign is that of the exact real determinant of the double inputs: a floating-point filter answers
/// almost every call (about 25 flops); only near-coplanar inputs fall back to exact expansion arithmetic
/// (Shewchuk-style two-sum / two-product, a few thousand flops). Exact as long as no intermediate product
/// underflows, i.e. for coordinates of magnitude 0 or within [1e-90, 1e90].
int Orient3D(const Vec3d& inA, const Vec3d& inB, const Vec3d& inC, const Vec3d& inD);

/// Exact orientation of three 2D points: the sign of (b − a) × (c − a); +1 when a, b, c turn
/// counter-clockwise, 0 when collinear. Same filter and exactness as `Orient3D`.
int Orient2D(const Vec2d& inA, const Vec2d& inB, const Vec2d& inC);

} // namespace bdt
