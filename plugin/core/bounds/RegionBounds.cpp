#include "RegionBounds.h"

#include <algorithm>
#include <bdt/core/base/Error.h>
#include <bdt/core/bounds/SphereUpdate.h>
#include <bdt/core/bounds/TreeState.h>
#include <cmath>

namespace bdt
{


template <class Bound>
RegionBoundsBase<Bound>::RegionBoundsBase(std::shared_ptr<const BDTree> inTree, std::uint32_t inLevel)
    : mTree(std::move(inTree))
{
    if (!mTree)
        throw Error("region bounds: no tree given");
    mLevel = std::min(inLevel, mTree->LevelCount() - 1);
    const std::uint32_t count = mTree->LevelEnd(mLevel);
    mBounds.resize(count);
    mStamp.assign(count, 0);
}

template <class Bound> bool RegionBoundsBase<Bound>::BeginStep(const Pose& inPose, double inScale)
{
    if (!inPose.rotation.allFinite() || !inPose.translation.allFinite() || !std::isfinite(inScale) ||
        inScale <= 0.0)
        return false;
    mPose = inPose;
    mScale = inScale;
    if (++mEpoch == 0) // 2^32 steps later: clear the stamps so no stale bound matches the restarted count
    {
        std::fill(mStamp.begin(), mStamp.end(), 0u);
        mEpoch = 1;
    }
    return true;
}

template <class Bound>
bool RegionBoundsBase<Bound>::BeginStep(std::span<const Vec3f> inPositions, const Pose& inPose,
                                        double inScale)
{
    if (inPositions.size() != mTree->GetModel().VertexCount())
        return false;
    for (const Vec3f& p : inPositions)
        if (!p.allFinite())
            return false;
    return BeginStep(inPose, inScale);
}

template class RegionBoundsBase<WorldBall>;
template class RegionBoundsBase<WorldBox>;

SphereRegions::SphereRegions(std::shared_ptr<const BDTree> inTree, std::uint32_t inLevel)
    : RegionBoundsBase(std::move(inTree), inLevel), mQq(4 * std::size_t(mTree->ModeCount()), 0.0f)
{
}

bool SphereRegions::SetStep(std::span<const float> inQ, const Pose& inPose, double inScale)
{
    if (!TreeState::AcceptsQ(inQ, mTree->ModeCount()) || !BeginStep(inPose, inScale))
        return false;
    double norm2 = 0.0;
    for (std::size_t j = 0; j < inQ.size(); ++j)
    {
        const float q = inQ[j];
        std::fill_n(mQq.begin() + 4 * j, 3, q);
        mQq[4 * j + 3] = std::abs(q);
        norm2 += double(q) * q;
    }
    mQNorm = RoundUpToFloat(std::sqrt(norm2)); // rounded up so the tight radius stays conservative
    return true;
}

WorldBall SphereRegions::Compute(std::uint32_t inNode) const
{
    alignas(16) float sphere[4];
    UpdateSphere<true>(mTree->Row(inNode), mQq.data(), mTree->ModeCount(), mQNorm, sphere);
    return {ToWorld(sphere), mScale * sphere[3]};
}

BoxRegions::BoxRegions(std::shared_ptr<const BDAabbTree> inBoxes, std::uint32_t inLevel)
    : RegionBoundsBase(inBoxes ? inBoxes->TreePtr() : nullptr, inLevel), mBoxes(std::move(inBoxes)),
      mQq(8 * std::size_t(mTree->ModeCount()), 0.0f)
{
}

bool BoxRegions::SetStep(std::span<const float> inQ, const Pose& inPose, double inScale)
{
    if (!TreeState::AcceptsQ(inQ, mTree->ModeCount()) || !BeginStep(inPose, inScale))
        return false;
    MakeBoxUpdateInput(inQ, mQq.data());
    return true;
}

WorldBox BoxRegions::Compute(std::uint32_t inNode) const
{
    UpdatedBox box;
    UpdateBox(mBoxes->Row(inNode), mQq.data(), mTree->ModeCount(), box);
    return {ToWorld(box.center), mScale * Vec3d(box.halfExtents[0], box.halfExtents[1], box.halfExtents[2])};
}

WorldBall DistanceRegions::Compute(std::uint32_t inNode) const
{
    const Vec3f& centre = mPositions[mHierarchy->Region(inNode).centralVertex];
    return {ToWorld(centre.data()), mScale * mHierarchy->Radius(inNode, mPositions)};
}

} // namespace bdt
