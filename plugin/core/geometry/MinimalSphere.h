#pragma once

#include <bdt/core/base/Math.h>

#include <span>

namespace bdt
{

/// The smallest sphere enclosing a point set (Welzl 1991, the move-to-front variant), in the points' frame.
///
/// Robust to duplicate, collinear, coplanar and cocircular points: whenever the sphere through a support
/// set is degenerate, the smallest sphere of that support set is used instead, and a final pass sets the
/// radius to the largest distance from the centre to any point, so every point is always inside (in double
/// arithmetic) whatever rounding did. The radius is minimal to about 1e-12 relative.
///
/// Expected cost O(n); the input order is not changed (a shuffled copy is used, seeded deterministically).
/// An empty input gives the zero sphere at the origin.
Sphere MinimalEnclosingSphere(std::span<const Vec3d> inPoints);

/// A centre c for a sphere enclosing the balls (`inCenters[k]`, `inRadii[k]`), whose radius is then
/// max_k ‖inCenters[k] − c‖ + inRadii[k]: close to the smallest such radius, not exactly it (any c gives a
/// valid enclosing sphere, measured from c). The minimal sphere of the centres, refined by 16 steps towards
/// the farthest ball's far side with shrinking steps (Bădoiu and Clarkson's iteration), keeping the best
/// centre met. Cost O(n) with about 20 passes over the balls; deterministic. Empty input: the origin.
Vec3d EnclosingBallsCentre(std::span<const Vec3d> inCenters, std::span<const double> inRadii);

/// The smallest sphere that has the 1 to 4 given points on its surface... or, if they are affinely
/// dependent, the smallest sphere enclosing them. Exposed for tests.
Sphere SphereFromSupport(std::span<const Vec3d> inSupport);

} // namespace bdt
