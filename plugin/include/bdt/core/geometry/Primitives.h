#pragma once

#include <bdt/core/base/Math.h>

#include <concepts>

namespace bdt
{

/// A solid half-space {x : normal·x ≤ offset}; `normal` is unit length, pointing out of the solid.
struct Plane
{
    Vec3d normal = Vec3d::UnitY();
    double offset = 0.0;
};

/// A solid box: `pose` maps box coordinates to the frame it is given in; half extents along its axes.
struct OrientedBox
{
    Pose pose;
    Vec3d halfExtents = Vec3d::Ones();
};

/// A solid capsule: all points within `radius` of the segment [a, b].
struct Capsule
{
    Vec3d a = Vec3d::Zero();
    Vec3d b = Vec3d::UnitY();
    double radius = 0.5;
};

/// A ray origin + t·direction for t in [0, maxT]; `direction` need not be unit length (t scales with it).
struct Ray
{
    Vec3d origin = Vec3d::Zero();
    Vec3d direction = Vec3d::UnitX();
    double maxT = 1e30;
};

/// Axis-aligned box.
using Aabb = Eigen::AlignedBox3d;

/// The solid primitives a deformable body collides with exactly (`CollideProxies`, `CollideTriangles` and
/// the cached queries take each of them): `Sphere`, `Plane`, `OrientedBox`, `Capsule`.
template <class T>
concept PrimitiveShape = std::same_as<T, Sphere> || std::same_as<T, Plane> || std::same_as<T, OrientedBox> ||
                         std::same_as<T, Capsule>;

} // namespace bdt
