#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <array>
#include <cstdint>

namespace bdt
{

/// Single precision 3-vector, used for stored geometry (rest positions, basis vectors) in model units.
using Vec3f = Eigen::Vector3f;
/// Double precision 3-vector, used by queries and by the bake for everything not on the hot path.
using Vec3d = Eigen::Vector3d;
using Mat3d = Eigen::Matrix3d;

/// A rigid transform: `world = rotation * local + translation`. `rotation` must be orthonormal; the queries
/// do not check it. Double precision so that transforming a body-frame sphere loses nothing against the
/// float rounding slack built into the tree's radii.
struct Pose
{
    Mat3d rotation = Mat3d::Identity(); ///< Body-to-world rotation (orthonormal, det +1).
    Vec3d translation = Vec3d::Zero();  ///< Body origin in world coordinates (model units).

    /// Maps a body-frame point to world.
    Vec3d Apply(const Vec3d& inLocal) const { return rotation * inLocal + translation; }
    /// Maps a world point to the body frame.
    Vec3d ApplyInverse(const Vec3d& inWorld) const { return rotation.transpose() * (inWorld - translation); }
    /// The identity transform.
    static Pose Identity() { return {}; }
};

/// A sphere: centre and radius in one frame (which one is stated where it is used).
struct Sphere
{
    Vec3d center = Vec3d::Zero();
    double radius = 0.0;
};

/// Index of a triangle's three vertices into a model's positions.
using Triangle = std::array<std::uint32_t, 3>;

} // namespace bdt
