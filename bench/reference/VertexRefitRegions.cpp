#include "reference/VertexRefitRegions.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace bdt::bench
{

WorldBall RefitSphereRegions::Compute(std::uint32_t inNode) const
{
    // Two passes in float, as `DistanceHierarchy::Radius` does the one pass it needs (and raised as it is).
    const auto vertices = mHierarchy->RegionVertices(inNode);
    Vec3f sum = Vec3f::Zero();
    for (std::uint32_t v : vertices)
        sum += mPositions[v];
    const Vec3f centre = sum / float(vertices.size());
    float largest = 0.0f;
    for (std::uint32_t v : vertices)
        largest = std::max(largest, (mPositions[v] - centre).squaredNorm());
    const float radius = std::sqrt(largest) * (1.0f + 16.0f * std::ldexp(1.0f, -24)) + 1e-18f;
    return {mPose.Apply(mScale * centre.cast<double>()), mScale * radius};
}

WorldBox RefitBoxRegions::Compute(std::uint32_t inNode) const
{
    Vec3f lo = Vec3f::Constant(std::numeric_limits<float>::infinity());
    Vec3f hi = -lo;
    for (std::uint32_t v : mHierarchy->RegionVertices(inNode))
    {
        lo = lo.cwiseMin(mPositions[v]);
        hi = hi.cwiseMax(mPositions[v]);
    }
    const Vec3d low = lo.cast<double>(), high = hi.cast<double>();
    return {mPose.Apply(mScale * 0.5 * (low + high)), mScale * 0.5 * (high - low)};
}

} // namespace bdt::bench
