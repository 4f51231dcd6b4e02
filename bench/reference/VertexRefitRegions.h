#pragma once

#include "core/bounds/RegionBounds.h"
#include <memory>
#include <span>

namespace bdt::bench
{

/// The Distance Hierarchy paper's two baselines (Madera et al. 2007, §3.1 and §3.2.2), refitted lazily from
/// the deformed vertices of each region on first visit in a step, on the same regions as the Distance
/// Hierarchy (its vertex lists): a sphere whose centre is the region vertices' mean and whose radius is the
/// largest distance to it (two passes over the vertices), and the box of their minima and maxima (one pass,
/// 6 comparisons a vertex), axis-aligned in the body's rest frame. Both contain their regions' vertices, so
/// `CollideRegions` on them is conservative. Per body; one thread at a time.
class RefitSphereRegions : public VertexRegionBounds<WorldBall>
{
public:
    /// Regions at level `inLevel` (clamped) of `inHierarchy` (not null; throws `bdt::Error`).
    RefitSphereRegions(std::shared_ptr<const DistanceHierarchy> inHierarchy, std::uint32_t inLevel)
        : VertexRegionBounds(std::move(inHierarchy), inLevel)
    {
    }

    const WorldBall& Bound(std::uint32_t inNode)
    {
        return Cached(inNode, [this](std::uint32_t inIndex) { return Compute(inIndex); });
    }

private:
    WorldBall Compute(std::uint32_t inNode) const;
};

/// The refitted box of each region; see `RefitSphereRegions`.
class RefitBoxRegions : public VertexRegionBounds<WorldBox>
{
public:
    /// Regions at level `inLevel` (clamped) of `inHierarchy` (not null; throws `bdt::Error`).
    RefitBoxRegions(std::shared_ptr<const DistanceHierarchy> inHierarchy, std::uint32_t inLevel)
        : VertexRegionBounds(std::move(inHierarchy), inLevel)
    {
    }

    const WorldBox& Bound(std::uint32_t inNode)
    {
        return Cached(inNode, [this](std::uint32_t inIndex) { return Compute(inIndex); });
    }

private:
    WorldBox Compute(std::uint32_t inNode) const;
};

} // namespace bdt::bench
