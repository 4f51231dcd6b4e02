#pragma once

// Shared pieces of the BD-Tree queries (TreeQueries.h), private to plugin/core.

#include <bdt/core/queries/TreeQueries.h>
#include <cstdint>
#include <span>

namespace bdt::detail
{

/// Relative slack added to every bounding-sphere test (1e-9 of the radii), plus 1e-13 of the centres'
/// distance from the world origin for the double rounding of the pose transform. The updated spheres are
/// conservative in exact arithmetic on their floats; the slack keeps them so after the double arithmetic of
/// the test, so a sphere that touches its geometry is never rejected. It only ever adds candidates.
inline constexpr double cRelativeSlack = 1e-9;
inline constexpr double cPositionSlack = 1e-13;

/// A node's updated sphere mapped to world (or kept in the rest frame for rest-frame queries).
struct WorldSphere
{
    Vec3d center = Vec3d::Zero();
    double radius = 0.0;
};

/// An updated sphere `inSphere` (rest frame) scaled, its centre mapped by `inPose`, its radius grown by
/// `inInflate`.
inline WorldSphere PlaceSphere(const UpdatedSphere& inSphere, const Pose& inPose, double inScale = 1.0,
                               double inInflate = 0.0)
{
    return {inPose.Apply(inScale * Vec3d(inSphere.center[0], inSphere.center[1], inSphere.center[2])),
            inScale * double(inSphere.radius) + inInflate};
}

/// An updated sphere of a body, placed where the body is (scale and inflate applied).
inline WorldSphere PlaceSphere(const DeformedBody& inBody, const UpdatedSphere& inSphere)
{
    return PlaceSphere(inSphere, inBody.pose, inBody.scale, inBody.inflate);
}

/// The lazily updated sphere of `inNode` (8M flops the first time in a step), scaled, its centre mapped by
/// `inPose`, its radius grown by `inInflate`.
inline WorldSphere NodeSphere(TreeState& ioState, const Pose& inPose, std::uint32_t inNode, double inScale = 1.0,
                              double inInflate = 0.0)
{
    return PlaceSphere(ioState.Sphere(inNode), inPose, inScale, inInflate);
}

/// The world sphere of `inNode` of a body (scale and inflate applied).
inline WorldSphere NodeSphere(const DeformedBody& inBody, std::uint32_t inNode)
{
    return NodeSphere(*inBody.state, inBody.pose, inNode, inBody.scale, inBody.inflate);
}

/// Slack for a test involving spheres of total radius `inRadius` centred near `inCenter`.
inline double Slack(double inRadius, const Vec3d& inCenter)
{
    return cRelativeSlack * inRadius + cPositionSlack * inCenter.cwiseAbs().maxCoeff();
}

/// True when two spheres overlap or touch (with slack).
inline bool SpheresOverlap(const WorldSphere& inA, const WorldSphere& inB)
{
    const double reach = inA.radius + inB.radius;
    const double slack = Slack(reach, inA.center) + cPositionSlack * inB.center.cwiseAbs().maxCoeff();
    return (inA.center - inB.center).squaredNorm() <= (reach + slack) * (reach + slack);
}

/// The deformed triangle `inTriangle` (tree order) of a body, scaled and posed. 18M + 45 flops.
inline void WorldTriangle(const DeformedBody& inBody, std::uint32_t inTriangle, Vec3d (&outVertices)[3])
{
    DeformedTriangle(*inBody.state, inTriangle, outVertices);
    for (Vec3d& v : outVertices)
        v = inBody.pose.Apply(inBody.scale * v);
}

/// How far a body's spheres can have changed in its rest frame (model units) since q was `inQ0` (M entries):
/// `moved` bounds any centre's motion, Σ_j b_j|Δq_j| (b_j ≥ ‖Ū_j‖, `ContactProxies::CentreBounds`), and `grown`
/// any radius's change, max(Σ_j e_j|Δq_j|, δ‖Δq‖₂) under either bound, for the nodes whose radius terms
/// `inRadiusBounds` bounds (`ContactProxies::ProxyRadiusBounds` or `NodeRadiusBounds`). Exact arithmetic. O(M).
struct SphereMotion
{
    double moved = 0.0;
    double grown = 0.0;
};
SphereMotion MotionSince(const TreeState& inState, std::span<const float> inQ0, std::span<const float> inRadiusBounds);

/// How far any proxy of a body can have moved in its rest frame (model units) since q was `inQ0`: its centre
/// plus its radius, `MotionSince` with `ContactProxies::ProxyRadiusBounds`. O(M).
double ProxyDrift(const TreeState& inState, std::span<const float> inQ0);

/// A bound on the updated radius at the current q (model units) of every node whose radius terms
/// `inRadiusBounds` bounds: R + ΣΔR_j|q_j| at their largest (the tight bound's radius is never larger). O(M).
double LargestRadius(const TreeState& inState, std::span<const float> inRadiusBounds);

/// `LargestRadius` of the proxies (`ContactProxies::ProxyRadiusBounds`).
double LargestProxyRadius(const TreeState& inState);

/// A bound on the float rounding of any proxy's updated centre and radius at the current q (model units): γ
/// of the magnitudes of the terms summed (‖c‖ + Σ‖Ū_j‖|q_j| and R + ΣΔR_j|q_j|). O(M).
double ProxyRounding(const TreeState& inState);

} // namespace bdt::detail
