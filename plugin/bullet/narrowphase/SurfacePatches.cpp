#include "SurfacePatches.h"
#include "bullet/ShapeSolver.h"

#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>

namespace bdt
{

PatchView PlaceProxyPatch(const DeformableShape& inShape, const DeformedBody& inBody, std::uint32_t inProxy,
                          PlacedPatch& ioScratch, QueryStats* ioStats, EPatchStorage inStorage)
{
    const ShapeSolver& solver = ShapeSolver::Of(inShape);
    PatchView view = PlacePatch(inBody, *solver.Patches(), inProxy, solver.Surface(),
                                double(inShape.getMargin()), 0.0, ioScratch, ioStats, inStorage);
    // A feature further behind one of the patch's faces than this is on the far side of a thin part, not in
    // it.
    view.depthLimit = 0.5 * view.bound.radius;
    return view;
}

bool InsideSurface(const DeformableShape& inShape, const btTransform& inWorldFromLocal, const Vec3d& inPoint,
                   QueryStats& ioStats)
{
    const ProxyPatches* patches = ShapeSolver::Of(inShape).Patches();
    if (patches == nullptr || !patches->Closed() || !inPoint.allFinite())
        return false;
    const DeformedBody body = inShape.QueryView(inWorldFromLocal);
    Ray ray;
    ray.origin = inPoint;
    const Vec3d away = inPoint - ToVec3d(inWorldFromLocal.getOrigin());
    ray.direction = away.norm() > 0.0 ? Vec3d(away.normalized()) : Vec3d(Vec3d::UnitY());
    const std::optional<RayHit> hit = RayCast(body, ray, ioStats);
    if (!hit)
        return false;
    Vec3d corners[3];
    DeformedTriangle(*body.state, hit->triangle, corners);
    const Vec3d outward = body.pose.rotation * (corners[1] - corners[0]).cross(corners[2] - corners[0]);
    return outward.dot(ray.direction) > 0.0;
}

void AppendSurface(std::span<const SurfaceContact> inContacts, std::vector<PairContact>& outContacts)
{
    for (const SurfaceContact& contact : inContacts)
    {
        PairContact out;
        out.pointOnB = contact.pointOnB;
        out.normal = contact.normal;
        out.distance = contact.distance;
        out.feature0 = {contact.proxyA, contact.triangleA, contact.barycentricA};
        if (contact.proxyB != cNoIndex)
            out.feature1 = {contact.proxyB, contact.triangleB, contact.barycentricB};
        outContacts.push_back(out);
    }
}

} // namespace bdt
