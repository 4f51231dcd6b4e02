#include "RestingMeasures.h"

#include <BulletCollision/CollisionShapes/btConvexShape.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <algorithm>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/base/Error.h>
#include <cmath>

namespace bdt::bench
{

void DeformedSurface(const btRigidBody& inBody, WorldSurface& outSurface)
{
    const DeformableShape* shape = AsDeformable(inBody.getCollisionShape());
    if (shape == nullptr)
        throw Error("resting: DeformedSurface of a body without a deformable shape");
    const Model& model = shape->Asset().GetModel();
    const Pose principal = shape->Asset().Mass().ToPrincipal();
    const double scale = double(shape->getLocalScaling().x());
    const std::span<const float> q = shape->State().Q();
    const Mat3d basis = ToMat3d(inBody.getWorldTransform().getBasis());
    const Vec3d origin = ToVec3d(inBody.getWorldTransform().getOrigin());
    outSurface.triangles = model.Triangles();
    outSurface.vertices.resize(model.VertexCount());
    for (std::size_t i = 0; i < model.VertexCount(); ++i)
        outSurface.vertices[i] = basis * (scale * principal.Apply(model.DeformedPosition(i, q))) + origin;
}

Vec3d LowestPoint(const btRigidBody& inBody, const WorldSurface* inSurface)
{
    if (AsDeformable(inBody.getCollisionShape()) != nullptr)
    {
        if (inSurface == nullptr || inSurface->vertices.empty())
            throw Error("resting: LowestPoint of a deformable needs its surface");
        const std::vector<Vec3d>& vertices = inSurface->vertices;
        const double lowest =
            std::min_element(vertices.begin(), vertices.end(),
                             [](const Vec3d& inA, const Vec3d& inB) { return inA.y() < inB.y(); })
                ->y();
        // A flat bottom has many lowest vertices: the one nearest the centre of mass across, not a corner
        // that may stand over the edge of what the body rests on.
        const Vec3d centre = ToVec3d(inBody.getCenterOfMassPosition());
        const auto across = [&](const Vec3d& inV)
        { return Eigen::Vector2d(inV.x() - centre.x(), inV.z() - centre.z()).squaredNorm(); };
        const Vec3d* best = nullptr;
        for (const Vec3d& v : vertices)
            if (v.y() <= lowest + cLowestTie && (best == nullptr || across(v) < across(*best)))
                best = &v;
        return *best;
    }
    const btCollisionShape* shape = inBody.getCollisionShape();
    if (!shape->isConvex())
        throw Error(std::string("resting: LowestPoint of a rigid ") + shape->getName() + ", not convex");
    const btTransform& transform = inBody.getWorldTransform();
    const btVector3 down = transform.getBasis().transpose() * btVector3(0, -1, 0);
    const btVector3 local = static_cast<const btConvexShape*>(shape)->localGetSupportingVertex(down);
    return ToVec3d(transform * local);
}

std::optional<double> SurfaceTopAt(const Vec3d& inPoint, const WorldSurface& inSurface)
{
    constexpr double cEdgeTolerance = 1e-9; // barycentric: a line through a shared edge hits both triangles
    std::optional<double> top;
    for (const Triangle& triangle : inSurface.triangles)
    {
        const Vec3d& a = inSurface.vertices[triangle[0]];
        const Vec3d& b = inSurface.vertices[triangle[1]];
        const Vec3d& c = inSurface.vertices[triangle[2]];
        // Twice the signed area of the triangle seen from above (x, z), and the point's weights.
        const double area = (b.x() - a.x()) * (c.z() - a.z()) - (b.z() - a.z()) * (c.x() - a.x());
        if (std::abs(area) < 1e-14)
            continue;
        const double px = inPoint.x() - a.x(), pz = inPoint.z() - a.z();
        const double wb = (px * (c.z() - a.z()) - pz * (c.x() - a.x())) / area;
        const double wc = ((b.x() - a.x()) * pz - (b.z() - a.z()) * px) / area;
        const double wa = 1.0 - wb - wc;
        if (wa < -cEdgeTolerance || wb < -cEdgeTolerance || wc < -cEdgeTolerance)
            continue;
        const double y = wa * a.y() + wb * b.y() + wc * c.y();
        top = top ? std::max(*top, y) : y;
    }
    return top;
}

double LargestSpeed(const btRigidBody& inBody, const WorldSurface* inSurface)
{
    const Vec3d v = ToVec3d(inBody.getLinearVelocity());
    const Vec3d omega = ToVec3d(inBody.getAngularVelocity());
    const DeformableShape* shape = AsDeformable(inBody.getCollisionShape());
    if (shape == nullptr)
    {
        btVector3 centre;
        btScalar radius;
        inBody.getCollisionShape()->getBoundingSphere(centre, radius);
        return v.norm() + omega.norm() * (double(centre.length()) + double(radius));
    }
    if (inSurface == nullptr)
        throw Error("resting: LargestSpeed of a deformable needs its surface");
    const Model& model = shape->Asset().GetModel();
    const std::uint32_t modes = model.ModeCount();
    const std::span<const float> basis = model.Basis();
    const std::span<const double> qDot = shape->Dynamics().QDot();
    // Rest-to-world rotation times the scale: the world velocity of a rest-frame displacement rate.
    const Mat3d restToWorld = double(shape->getLocalScaling().x()) *
                              ToMat3d(inBody.getWorldTransform().getBasis()) *
                              shape->Asset().Mass().ToPrincipal().rotation;
    const Vec3d centre = ToVec3d(inBody.getCenterOfMassPosition());
    double largest = 0.0;
    for (std::size_t i = 0; i < inSurface->vertices.size(); ++i)
    {
        Vec3d modal = Vec3d::Zero();
        const float* row = basis.data() + i * modes * 3;
        for (std::uint32_t j = 0; j < modes; ++j)
            modal += qDot[j] * Vec3d(row[3 * j], row[3 * j + 1], row[3 * j + 2]);
        const Vec3d speed = v + omega.cross(inSurface->vertices[i] - centre) + restToWorld * modal;
        largest = std::max(largest, speed.norm());
    }
    return largest;
}

bool BodyReport::Accepted(double inMarginMm) const
{
    // NaN gaps (the support never found) fail every comparison.
    return gapMaxMm <= 2.0 + inMarginMm && gapMinMm >= -2.0 && speedMax <= 0.005 && !off && asleep;
}

nlohmann::json BodyReport::Json() const
{
    const auto mm = [](double inValue)
    { return std::isnan(inValue) ? nlohmann::json() : nlohmann::json(inValue); };
    return {{"name", name},
            {"gap_mm_max", mm(gapMaxMm)},
            {"gap_mm_mean", mm(gapMeanMm)},
            {"gap_mm_min", mm(gapMinMm)},
            {"speed_max_m_s", speedMax},
            {"modal_energy_j", modalEnergy},
            {"vibration_energy_j", vibrationEnergy},
            {"asleep", asleep},
            {"off", off ? 1 : 0}};
}

RestingMeter::RestingMeter(std::vector<Watched> inBodies)
    : mBodies(std::move(inBodies)), mSurfaces(mBodies.size()), mGaps(mBodies.size()),
      mSpeedMax(mBodies.size(), 0.0)
{
}

void RestingMeter::UpdateSurfaces()
{
    for (std::size_t i = 0; i < mBodies.size(); ++i)
        if (AsDeformable(mBodies[i].body->getCollisionShape()) != nullptr)
            DeformedSurface(*mBodies[i].body, mSurfaces[i]);
}

std::optional<double> RestingMeter::Gap(std::size_t inIndex, Vec3d& outLowest) const
{
    const Watched& watched = mBodies[inIndex];
    const WorldSurface* surface = mSurfaces[inIndex].vertices.empty() ? nullptr : &mSurfaces[inIndex];
    outLowest = LowestPoint(*watched.body, surface);
    if (watched.support.body == nullptr)
    {
        const double half = watched.support.floorHalfSize;
        if (std::abs(outLowest.x()) > half || std::abs(outLowest.z()) > half)
            return std::nullopt;
        return outLowest.y();
    }
    for (std::size_t k = 0; k < mBodies.size(); ++k)
        if (mBodies[k].body == watched.support.body)
        {
            const std::optional<double> top = SurfaceTopAt(outLowest, mSurfaces[k]);
            return top ? std::optional<double>(outLowest.y() - *top) : std::nullopt;
        }
    throw Error("resting: " + watched.name + " rests on a body that is not measured");
}

void RestingMeter::Sample()
{
    UpdateSurfaces();
    for (std::size_t i = 0; i < mBodies.size(); ++i)
    {
        Vec3d lowest;
        if (const std::optional<double> gap = Gap(i, lowest))
            mGaps[i].push_back(*gap);
        const WorldSurface* surface = mSurfaces[i].vertices.empty() ? nullptr : &mSurfaces[i];
        mSpeedMax[i] = std::max(mSpeedMax[i], LargestSpeed(*mBodies[i].body, surface));
    }
}

std::vector<BodyReport> RestingMeter::Report()
{
    UpdateSurfaces();
    std::vector<BodyReport> reports;
    for (std::size_t i = 0; i < mBodies.size(); ++i)
    {
        const Watched& watched = mBodies[i];
        BodyReport report;
        report.name = watched.name;
        const std::vector<double>& gaps = mGaps[i];
        const double nan = std::numeric_limits<double>::quiet_NaN();
        report.gapMaxMm = gaps.empty() ? nan : 1e3 * *std::max_element(gaps.begin(), gaps.end());
        report.gapMinMm = gaps.empty() ? nan : 1e3 * *std::min_element(gaps.begin(), gaps.end());
        double sum = 0.0;
        for (const double gap : gaps)
            sum += gap;
        report.gapMeanMm = gaps.empty() ? nan : 1e3 * sum / double(gaps.size());
        report.speedMax = mSpeedMax[i];
        if (const DeformableShape* shape = AsDeformable(watched.body->getCollisionShape()))
        {
            report.modalEnergy = shape->Dynamics().Energy();
            report.vibrationEnergy = shape->Dynamics().VibrationEnergy();
        }
        report.asleep = watched.body->getActivationState() == ISLAND_SLEEPING;
        Vec3d lowest;
        const std::optional<double> gap = Gap(i, lowest);
        report.off = !gap || *gap > BodyReport::cOffGap || *gap < -BodyReport::cOffGap ||
                     lowest.y() < -BodyReport::cOffGap;
        reports.push_back(report);
    }
    return reports;
}

} // namespace bdt::bench
