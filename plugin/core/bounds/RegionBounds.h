#pragma once

#include "DistanceHierarchy.h"

#include <bdt/core/bounds/BDAabbTree.h>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace bdt
{

/// A ball in world: a sphere of the BD-Tree or a region of the Distance Hierarchy.
struct WorldBall
{
    Vec3d center = Vec3d::Zero();
    double radius = 0.0;
};

/// A box in world: centre and half extents along the axes of its body's rotation (the columns of
/// `Pose::rotation`), so a BD-AABB box (axis-aligned in the rest frame) placed by its body's pose.
struct WorldBox
{
    Vec3d center = Vec3d::Zero();
    Vec3d halfExtents = Vec3d::Zero();
};

/// What the three region-bound kinds below share: the tree whose nodes are the regions, the level at which a
/// traversal stops (nodes of that level and leaves above it are the *regions*), the body's placement for the
/// step, and a per-node cache of world bounds stamped per step (a node's bound is computed on its first visit
/// in a step, at any time, in any order, as the BD-Tree's spheres are, §3.4).
///
/// Before the first step the bounds are those of the rest shape at the identity placement.
/// Per body; one thread at a time.
template <class Bound> class RegionBoundsBase
{
public:
    using BoundType = Bound;

    const BDTree& Tree() const { return *mTree; }
    /// The level at which traversals stop; nodes [0, Tree().LevelEnd(Level())) can be visited.
    std::uint32_t Level() const { return mLevel; }
    /// True for the regions a traversal reports: nodes at `Level()` and leaves above it.
    bool IsRegion(std::uint32_t inNode) const
    {
        const BDTreeNode& node = mTree->Node(inNode);
        return node.IsLeaf() || node.level >= mLevel;
    }
    const Pose& GetPose() const { return mPose; }
    double Scale() const { return mScale; }

    /// Bounds computed since construction (cache misses): the update count of the papers' cost models.
    std::uint64_t Updates() const { return mUpdates; }
    /// Bytes of this body's cache (bounds and stamps).
    std::size_t CacheBytes() const
    {
        return mBounds.size() * sizeof(Bound) + mStamp.size() * sizeof(std::uint32_t);
    }

protected:
    RegionBoundsBase(std::shared_ptr<const BDTree> inTree, std::uint32_t inLevel);

    /// Checks and stores the placement (finite pose, finite scale > 0) and starts a new step; false if bad.
    bool BeginStep(const Pose& inPose, double inScale);
    /// The same for kinds bounded from deformed vertices: also checks that `inPositions` has one finite point
    /// per model vertex (O(N)).
    bool BeginStep(std::span<const Vec3f> inPositions, const Pose& inPose, double inScale);

    /// The cached bound of `inNode` (< LevelEnd(Level())), computed by `inCompute(inNode)` on a miss.
    template <class Compute> const Bound& Cached(std::uint32_t inNode, Compute&& inCompute)
    {
        if (mStamp[inNode] != mEpoch)
        {
            mBounds[inNode] = inCompute(inNode);
            mStamp[inNode] = mEpoch;
            ++mUpdates;
        }
        return mBounds[inNode];
    }

    Vec3d ToWorld(const float* inRestPoint) const
    {
        return mPose.Apply(mScale * Vec3d(inRestPoint[0], inRestPoint[1], inRestPoint[2]));
    }

    std::shared_ptr<const BDTree> mTree;
    std::uint32_t mLevel = 0;
    Pose mPose;
    double mScale = 1.0;

private:
    std::vector<Bound> mBounds;
    std::vector<std::uint32_t> mStamp;
    std::uint32_t mEpoch = 1;
    std::uint64_t mUpdates = 0;
};

/// BD-Tree spheres as regions (§3.2, eq. 5 and 7, with the tight radius of `EBound::Tight`), from the tree's
/// own wrapped rows: 8M flops a sphere, from q alone.
class SphereRegions : public RegionBoundsBase<WorldBall>
{
public:
    /// Regions at level `inLevel` (clamped to the deepest level) of `inTree` (not null; throws `bdt::Error`).
    SphereRegions(std::shared_ptr<const BDTree> inTree, std::uint32_t inLevel);

    /// Starts a step at `inQ` (M finite entries, |q_j| ≤ `TreeState::cMaxAbsQ`) and placement; returns false,
    /// and keeps the last step, when an argument is bad.
    [[nodiscard]] bool SetStep(std::span<const float> inQ, const Pose& inPose, double inScale = 1.0);

    /// The node's sphere in world at this step's q and placement.
    const WorldBall& Bound(std::uint32_t inNode)
    {
        return Cached(inNode, [this](std::uint32_t inIndex) { return Compute(inIndex); });
    }

private:
    WorldBall Compute(std::uint32_t inNode) const;

    AlignedVector<float> mQq; ///< (q, q, q, |q|) per mode.
    float mQNorm = 0.0f;
};

/// BD-AABB boxes as regions (§3.5): 12M flops a box, from q alone.
class BoxRegions : public RegionBoundsBase<WorldBox>
{
public:
    /// Regions at level `inLevel` (clamped) of the box tree `inBoxes` (not null; throws `bdt::Error`).
    BoxRegions(std::shared_ptr<const BDAabbTree> inBoxes, std::uint32_t inLevel);

    /// As `SphereRegions::SetStep`.
    [[nodiscard]] bool SetStep(std::span<const float> inQ, const Pose& inPose, double inScale = 1.0);

    /// The node's box in world (axes those of the pose's rotation) at this step's q and placement.
    const WorldBox& Bound(std::uint32_t inNode)
    {
        return Cached(inNode, [this](std::uint32_t inIndex) { return Compute(inIndex); });
    }

private:
    WorldBox Compute(std::uint32_t inNode) const;

    std::shared_ptr<const BDAabbTree> mBoxes;
    AlignedVector<float> mQq; ///< `MakeBoxUpdateInput` of q.
};

/// The base of region kinds bounded from deformed vertices (the Distance Hierarchy, and refits of spheres or
/// boxes): the regions' vertex lists (those of a `DistanceHierarchy`) and this step's deformed vertices.
template <class Bound> class VertexRegionBounds : public RegionBoundsBase<Bound>
{
public:
    /// Starts a step with the deformed vertex positions `inPositions` (rest frame, one per model vertex, all
    /// finite; not copied: they must outlive the step) and placement. Returns false, and keeps the last step,
    /// when an argument is bad. Cost O(N) for the finiteness check.
    [[nodiscard]] bool SetStep(std::span<const Vec3f> inPositions, const Pose& inPose, double inScale = 1.0)
    {
        if (!this->BeginStep(inPositions, inPose, inScale))
            return false;
        mPositions = inPositions;
        return true;
    }

protected:
    /// Regions at level `inLevel` (clamped) of `inHierarchy` (not null; throws `bdt::Error`).
    VertexRegionBounds(std::shared_ptr<const DistanceHierarchy> inHierarchy, std::uint32_t inLevel)
        : RegionBoundsBase<Bound>(inHierarchy ? inHierarchy->TreePtr() : nullptr, inLevel),
          mHierarchy(std::move(inHierarchy)), mPositions(this->mTree->GetModel().Positions())
    {
    }

    std::shared_ptr<const DistanceHierarchy> mHierarchy;
    std::span<const Vec3f> mPositions; ///< This step's deformed vertices (the rest positions before a step).
};

/// Distance Hierarchy regions (Madera et al. 2007): the central vertex's deformed position and the radius
/// recomputed from the region's deformed vertices, one distance a vertex.
class DistanceRegions : public VertexRegionBounds<WorldBall>
{
public:
    /// Regions at level `inLevel` (clamped) of `inHierarchy` (not null; throws `bdt::Error`).
    DistanceRegions(std::shared_ptr<const DistanceHierarchy> inHierarchy, std::uint32_t inLevel)
        : VertexRegionBounds(std::move(inHierarchy), inLevel)
    {
    }

    /// The region's ball in world for this step's positions and placement.
    const WorldBall& Bound(std::uint32_t inNode)
    {
        return Cached(inNode, [this](std::uint32_t inIndex) { return Compute(inIndex); });
    }

private:
    WorldBall Compute(std::uint32_t inNode) const;
};

} // namespace bdt
