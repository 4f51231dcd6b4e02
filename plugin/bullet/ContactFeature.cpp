#include "core/geometry/TriangleGeometry.h"

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/NarrowPhaseCollision/btManifoldPoint.h>
#include <bdt/bullet/ContactFeature.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>

namespace bdt
{

ContactFeature FeatureOf(const btManifoldPoint& inPoint, int inSide, const DeformableShape& inShape)
{
    ContactFeature feature;
    const int node = inSide == 0 ? inPoint.m_partId0 : inPoint.m_partId1;
    const int triangle = inSide == 0 ? inPoint.m_index0 : inPoint.m_index1;
    if (node < 0 || std::uint32_t(node) >= inShape.State().Tree().NodeCount())
        return feature;
    feature.node = std::uint32_t(node);
    if (triangle < 0)
        return feature;
    const std::uint32_t tree = inShape.TreeTriangle(std::uint32_t(triangle));
    if (tree == cNoIndex)
    {
        feature.node = cNoIndex;
        return feature;
    }
    // The point on the body's margin-grown surface, in its local frame, back to the rest frame, onto the
    // triangle as the current q deforms it.
    const Pose principal = inShape.Asset().Mass().ToPrincipal();
    const double scale = double(inShape.getLocalScaling().x());
    const Vec3d local = ToVec3d(inSide == 0 ? inPoint.m_localPointA : inPoint.m_localPointB);
    const Vec3d rest = principal.rotation.transpose() * (local / scale - principal.translation);
    const Model& model = inShape.Asset().GetModel();
    const Triangle& corners = model.Triangles()[tree];
    const Vec3d vertices[3] = {model.DeformedPosition(corners[0], inShape.State().Q()),
                               model.DeformedPosition(corners[1], inShape.State().Q()),
                               model.DeformedPosition(corners[2], inShape.State().Q())};
    feature.triangle = tree;
    feature.barycentric = ClosestBarycentric(rest, vertices);
    return feature;
}

bool ContactSurfacePoint(const btManifoldPoint& inPoint, int inSide, const btCollisionObject& inObject,
                         SurfacePoint& outPoint)
{
    const DeformableShape* shape = AsDeformable(inObject.getCollisionShape());
    if (shape == nullptr || (inSide != 0 && inSide != 1))
        return false;
    const ContactFeature feature = FeatureOf(inPoint, inSide, *shape);
    if (!feature.OnSurface())
        return false;
    outPoint.triangle = shape->InputTriangle(feature.triangle);
    outPoint.barycentric = ToBtVector(feature.barycentric);
    return true;
}

} // namespace bdt
