#include "DistanceHierarchy.h"

#include <algorithm>
#include <bdt/core/base/Error.h>
#include <cmath>
#include <limits>

namespace bdt
{

namespace
{

// The largest distance from `inCentre` to a vertex of the list, in double (the build's exact value).
double LargestDistance(std::span<const std::uint32_t> inVertices, std::span<const Vec3f> inPositions,
                       const Vec3d& inCentre)
{
    double largest = 0.0;
    for (std::uint32_t v : inVertices)
        largest = std::max(largest, (inPositions[v].cast<double>() - inCentre).squaredNorm());
    return std::sqrt(largest);
}

} // namespace

DistanceHierarchy DistanceHierarchy::Build(std::shared_ptr<const BDTree> inTree)
{
    if (!inTree)
        throw Error("DistanceHierarchy::Build: no tree given");
    DistanceHierarchy hierarchy;
    hierarchy.mTree = std::move(inTree);
    const Model& model = hierarchy.mTree->GetModel();
    const auto positions = model.Positions();
    hierarchy.mRegions.resize(hierarchy.mTree->NodeCount());
    hierarchy.mVertexStart.assign(1, 0);
    ForEachNodeVertices(
        model, hierarchy.mTree->Nodes(),
        [&](std::uint32_t inNode, std::span<const std::uint32_t> inVertices)
        {
            // §3.1: the centroid of the region's vertices, then the vertex closest to it.
            Vec3d centroid = Vec3d::Zero();
            for (std::uint32_t v : inVertices)
                centroid += positions[v].cast<double>();
            centroid /= double(inVertices.size());
            std::uint32_t central = inVertices[0];
            double closest = std::numeric_limits<double>::infinity();
            for (std::uint32_t v : inVertices)
            {
                const double distance = (positions[v].cast<double>() - centroid).squaredNorm();
                if (distance < closest)
                {
                    closest = distance;
                    central = v;
                }
            }
            hierarchy.mVertices.insert(hierarchy.mVertices.end(), inVertices.begin(), inVertices.end());
            hierarchy.mVertexStart.push_back(static_cast<std::uint32_t>(hierarchy.mVertices.size()));
            hierarchy.mRegions[inNode].centralVertex = central;
            hierarchy.mRegions[inNode].restRadius =
                RoundUpToFloat(LargestDistance(inVertices, positions, positions[central].cast<double>()));
        });
    return hierarchy;
}

float DistanceHierarchy::Radius(std::uint32_t inNode, std::span<const Vec3f> inPositions) const
{
    // In float, one subtraction, three multiply-adds and a max a vertex. Each squared distance is within
    // 3 units of rounding u = 2⁻²⁴ of its exact value (relative), and so its square root within 2u; the
    // factor 1 + 16u keeps the radius above the exact one; 1e-18 covers distances whose squares underflow.
    const Vec3f centre = inPositions[mRegions[inNode].centralVertex];
    float largest = 0.0f;
    for (std::uint32_t v : RegionVertices(inNode))
        largest = std::max(largest, (inPositions[v] - centre).squaredNorm());
    return std::sqrt(largest) * (1.0f + 16.0f * std::ldexp(1.0f, -24)) + 1e-18f;
}

} // namespace bdt
