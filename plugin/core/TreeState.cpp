#include <bdt/core/Error.h>
#include <bdt/core/SphereUpdate.h>
#include <bdt/core/TreeState.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace bdt
{

TreeState::TreeState(std::shared_ptr<const ProxyLevel> inProxies)
{
    if (!inProxies)
        throw Error("tree state needs proxies");
    mModes = inProxies->Tree().ModeCount();
    mKernel = SelectSphereKernel(mBound == EBound::Tight, mModes);
    mQ.assign(mModes, 0.0f);
    mQRef.assign(mModes, 0.0f);
    mQq.assign(4 * std::size_t(mModes), 0.0f);
    SetProxies(std::move(inProxies));
}

void TreeState::SetProxies(std::shared_ptr<const ProxyLevel> inProxies)
{
    if (!inProxies)
        throw Error("tree state needs proxies");
    if (mProxies && inProxies->TreePtr() != mProxies->TreePtr())
        throw Error("proxy level belongs to another tree");
    mProxies = std::move(inProxies);
    const std::uint32_t count = mProxies->VisitCount();
    mSpheres.assign(4 * std::size_t(count), 0.0f);
    mStamp.assign(count, 0);
    mEpoch = 1;
}

void TreeState::SetBound(EBound inBound)
{
    if (inBound != mBound)
    {
        mBound = inBound;
        mKernel = SelectSphereKernel(mBound == EBound::Tight, mModes);
        NewEpoch();
    }
}

void TreeState::SetTemporalCoherence(bool inEnabled, float inRefreshFraction)
{
    mCoherence = inEnabled;
    mRefreshFraction = std::isfinite(inRefreshFraction) && inRefreshFraction > 0.0f ? inRefreshFraction : 0.02f;
    // Restart from the current q so no sphere is reused across the switch.
    RebuildQq(mQ);
    NewEpoch();
}

void TreeState::NewEpoch()
{
    mCoherenceGrowth = 0.0f;
    if (++mEpoch == 0)
    {
        // 2^32 steps later: clear the stamps so no stale sphere matches the restarted counter.
        std::fill(mStamp.begin(), mStamp.end(), 0u);
        mEpoch = 1;
    }
}

void TreeState::RebuildQq(std::span<const float> inQ)
{
    double norm2 = 0.0;
    for (std::uint32_t j = 0; j < mModes; ++j)
    {
        const float q = inQ[j];
        mQRef[j] = q;
        mQq[4 * j + 0] = q;
        mQq[4 * j + 1] = q;
        mQq[4 * j + 2] = q;
        mQq[4 * j + 3] = std::abs(q);
        norm2 += double(q) * q;
    }
    // Rounded up so the tight bound stays conservative.
    mQRefNorm = RoundUpToFloat(std::sqrt(norm2));
}

bool TreeState::SetQ(std::span<const float> inQ)
{
    if (inQ.size() != mModes)
        return false;
    for (float q : inQ)
    {
        if (!std::isfinite(q) || std::abs(q) > cMaxAbsQ)
            return false;
    }
    std::copy(inQ.begin(), inQ.end(), mQ.begin());

    if (mCoherence)
    {
        double delta2 = 0.0;
        for (std::uint32_t j = 0; j < mModes; ++j)
        {
            const double d = double(mQ[j]) - mQRef[j];
            delta2 += d * d;
        }
        const float delta = RoundUpToFloat(std::sqrt(delta2));
        const float* root = Tree().Row(0);
        const float rootGrowth = root[NodeRowLayout::TightOffset(mModes) + 1] * delta;
        if (rootGrowth <= mRefreshFraction * root[3])
        {
            // Keep every cached sphere; they grow by δR·‖δq‖ when read (eq. 11).
            mCoherenceGrowth = delta;
            return true;
        }
    }
    RebuildQq(mQ);
    NewEpoch();
    return true;
}

void TreeState::ComputeSphere(std::uint32_t inNode, float* outSphere) const
{
    mKernel(mProxies->Row(inNode), 1, mQq.data(), mModes, mQRefNorm, outSphere);
}

UpdatedSphere TreeState::UpdateSphere(std::uint32_t inNode)
{
    UpdatedSphere sphere;
    float* out = &sphere.center[0];
    if (inNode < mStamp.size())
    {
        float* cached = mSpheres.data() + 4 * std::size_t(inNode);
        if (mStamp[inNode] != mEpoch)
        {
            // Below the root, the tree stores each node's two children side by side at an odd index and the
            // next one, and a traversal that splits a node looks at both: one kernel call updates the pair.
            // (Any node of the cached prefix may be updated; the pairing only decides what is done at once.)
            // Rows come from two arrays split at `WrappedCount` (a level boundary): a pair must not straddle it.
            const std::uint32_t sibling = inNode == 0 ? 0 : ((inNode & 1u) != 0 ? inNode + 1 : inNode - 1);
            const std::uint32_t first = std::min(inNode, sibling);
            const std::uint32_t wrapped = mProxies->WrappedCount();
            if (sibling != inNode && sibling < mStamp.size() && mStamp[sibling] != mEpoch &&
                (first < wrapped) == (first + 1 < wrapped))
            {
                mKernel(mProxies->Row(first), 2, mQq.data(), mModes, mQRefNorm, mSpheres.data() + 4 * std::size_t(first));
                mStamp[sibling] = mEpoch;
                ++mSpheresUpdated;
            }
            else
                ComputeSphere(inNode, cached);
            mStamp[inNode] = mEpoch;
            ++mSpheresUpdated;
        }
        std::memcpy(out, cached, 4 * sizeof(float));
    }
    else
    {
        ComputeSphere(inNode, out);
        ++mSpheresUpdated;
    }
    if (mCoherenceGrowth > 0.0f)
    {
        // R'' = R' + δR‖δq‖₂ (eq. 11); rounded up by one ulp to cover the float multiply-add.
        const float* row = mProxies->Row(inNode);
        const float grown = sphere.radius + row[NodeRowLayout::TightOffset(mModes) + 1] * mCoherenceGrowth;
        sphere.radius = std::nextafter(grown, std::numeric_limits<float>::infinity());
    }
    return sphere;
}

void TreeState::UpdateRange(std::uint32_t inBegin, std::uint32_t inEnd)
{
    if (inEnd > mStamp.size() || inBegin > inEnd)
        throw Error("UpdateRange beyond the cached nodes");
    // Two contiguous runs: the proxy level's enlarged rows, then the tree's own.
    const std::uint32_t split = std::clamp(mProxies->WrappedCount(), inBegin, inEnd);
    if (split > inBegin)
        mKernel(mProxies->Row(inBegin), split - inBegin, mQq.data(), mModes, mQRefNorm, mSpheres.data() + 4 * std::size_t(inBegin));
    if (inEnd > split)
        mKernel(mProxies->Row(split), inEnd - split, mQq.data(), mModes, mQRefNorm, mSpheres.data() + 4 * std::size_t(split));
    std::fill(mStamp.begin() + inBegin, mStamp.begin() + inEnd, mEpoch);
    mSpheresUpdated += inEnd - inBegin;
}

std::size_t TreeState::MemoryBytes() const
{
    return sizeof(*this) + (mQ.size() + mQRef.size() + mQq.size() + mSpheres.size()) * sizeof(float) +
           mStamp.size() * sizeof(std::uint32_t);
}

} // namespace bdt
