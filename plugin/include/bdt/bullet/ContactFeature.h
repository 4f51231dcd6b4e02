#pragma once

#include <LinearMath/btVector3.h>
#include <bdt/core/geometry/Contact.h>
#include <bdt/core/base/Math.h>
#include <cstdint>

class btCollisionObject;
class btManifoldPoint;

namespace bdt
{

class DeformableShape;

/// Where a contact acts on a deformable body: its proxy (§3.4) and, in the surface model, the surface point;
/// its impulse reaches the modes through that point's row of U, or the proxy's Ū.
struct ContactFeature
{
    std::uint32_t node = cNoIndex; ///< The proxy node (a coarser node for an interrupted descent's contact).
    std::uint32_t triangle = cNoIndex; ///< The triangle in the tree's order; cNoIndex for a proxy contact.
    Vec3d barycentric = Vec3d::Zero(); ///< The point on the triangle (sums to 1).

    bool OnSurface() const { return triangle != cNoIndex; }
};

/// A point of a deformable body's surface: a triangle in the order of the mesh it was made from (the input
/// mesh, before the tree's reordering), and barycentric coordinates on it (they sum to 1).
struct SurfacePoint
{
    std::uint32_t triangle = cNoIndex;
    btVector3 barycentric{0, 0, 0};
};

/// The feature of side `inSide` (0 or 1) of a manifold point on `inShape` (`m_partId` the proxy, `m_index` the
/// input-mesh triangle or −1), barycentrics at the current q: valid until the body's next step. `node`
/// cNoIndex for a point without a valid proxy. About 20M flops for a surface point.
ContactFeature FeatureOf(const btManifoldPoint& inPoint, int inSide, const DeformableShape& inShape);

/// `FeatureOf` as a `SurfacePoint` of the deformable `inObject`; false, `outPoint` untouched, when it is not
/// deformable or the point is not a surface contact of it.
bool ContactSurfacePoint(const btManifoldPoint& inPoint, int inSide, const btCollisionObject& inObject,
                         SurfacePoint& outPoint);

} // namespace bdt
