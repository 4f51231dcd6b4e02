#pragma once

#include <LinearMath/btVector3.h>
#include <bdt/core/Contact.h>
#include <bdt/core/Math.h>
#include <cstdint>

class btCollisionObject;
class btManifoldPoint;

namespace bdt
{

class DeformableShape;

/// Where a contact acts on a deformable body: the proxy it was made at (BD-Tree paper §3.4) and, in the
/// surface model (`EContactModel::Surface`), the point of the deformed surface it touches. A contact's
/// impulse reaches the modes through that point's own row of U (barycentric over its triangle's vertices), or
/// through the proxy's mean displacement row Ū for a proxy contact.
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

/// Manifold points the narrowphase writes for a deformable body carry, on the body's side (body 0 of the
/// manifold is the deformable, or the first of two): `m_partId0` (`m_partId1`) the proxy node, `m_index0`
/// (`m_index1`) the triangle in the input mesh's order in the surface model and −1 in the proxies model. This
/// is the feature of side `inSide` (0 or 1) of such a point on `inShape`, its barycentric coordinates
/// recovered from the point's local position on the body (`m_localPointA` or `m_localPointB`) and the
/// triangle as the shape's current q deforms it: valid from the narrowphase that made the point (contact
/// callbacks included) until the body's next step. A point without a proxy, or with identifiers outside the
/// shape's tree, gives a feature with `node` cNoIndex. About 20M flops for a surface point.
ContactFeature FeatureOf(const btManifoldPoint& inPoint, int inSide, const DeformableShape& inShape);

/// `FeatureOf` for a user: where side `inSide` of a manifold point touches the deformable body `inObject`, as
/// a surface point. False (and `outPoint` untouched) when `inObject` is not deformable or the point is not a
/// surface contact of it (a proxy contact, another narrowphase's point).
bool ContactSurfacePoint(const btManifoldPoint& inPoint, int inSide, const btCollisionObject& inObject,
                         SurfacePoint& outPoint);

} // namespace bdt
