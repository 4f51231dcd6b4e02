#include <bdt/core/base/Error.h>
#include <bdt/core/bounds/SphereUpdate.h>
#include <bdt/core/bounds/TreeState.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace bdt
{

TreeState::TreeState(std::shared_ptr<const ContactProxies> inProxies)
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

void TreeState::SetProxies(std::shared_ptr<const ContactProxies> inProxies)
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
    ++mVersion;
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
    ++mVersion;
    mCoherenceGrowth = 0.0f;
    if (++mEpoch == cClaimed)
    {
        // 2^32 steps later: clear the stamps so no stale sphere matches the restarted counter (and no epoch is
        // ever the claimed mark).
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

bool TreeState::AcceptsQ(std::span<const float> inQ, std::uint32_t inModes)
{
    if (inQ.size() != inModes)
        return false;
    for (float q : inQ)
    {
        if (!std::isfinite(q) || std::abs(q) > cMaxAbsQ)
            return false;
    }
    return true;
}

bool TreeState::SetQ(std::span<const float> inQ)
{
    if (!AcceptsQ(inQ, mModes))
        return false;
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
            ++mVersion;
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

thread_local bool TreeState::sConcurrent = false;

// Out of line: the flag is only ever touched in this file, where its thread-local storage is direct.
TreeState::ConcurrentScope::ConcurrentScope()
{
    sConcurrent = true;
}

TreeState::ConcurrentScope::~ConcurrentScope()
{
    sConcurrent = false;
}

namespace
{

// Below the root, the tree stores each node's two children side by side at an odd index and the next one, and
// a traversal that splits a node looks at both: one kernel call updates the pair. (Any node of the cached
// prefix may be updated; the pairing only decides what is done at once.) Rows come from two arrays split at
// `WrappedCount` (a level boundary): a pair must not straddle it. Returns `inNode` when it has no sibling to
// update with it.
std::uint32_t UpdateSibling(std::uint32_t inNode, std::uint32_t inCached, std::uint32_t inWrapped)
{
    const std::uint32_t sibling = inNode == 0 ? 0 : ((inNode & 1u) != 0 ? inNode + 1 : inNode - 1);
    const std::uint32_t first = std::min(inNode, sibling);
    if (sibling == inNode || sibling >= inCached || (first < inWrapped) != (first + 1 < inWrapped))
        return inNode;
    return sibling;
}

} // namespace

void TreeState::UpdateSerial(std::uint32_t inNode, float* outSphere)
{
    float* cached = mSpheres.data() + 4 * std::size_t(inNode);
    const std::uint32_t sibling =
        UpdateSibling(inNode, std::uint32_t(mStamp.size()), mProxies->WrappedCount());
    if (sibling != inNode && mStamp[sibling] != mEpoch)
    {
        const std::uint32_t first = std::min(inNode, sibling);
        mKernel(mProxies->Row(first), 2, mQq.data(), mModes, mQRefNorm, mSpheres.data() + 4 * std::size_t(first));
        mStamp[sibling] = mEpoch;
        ++mSpheresUpdated;
    }
    else
        ComputeSphere(inNode, cached);
    mStamp[inNode] = mEpoch;
    ++mSpheresUpdated;
    std::memcpy(outSphere, cached, 4 * sizeof(float));
}

void TreeState::UpdateConcurrent(std::uint32_t inNode, float* outSphere)
{
    std::atomic_ref<std::uint32_t> stamp(mStamp[inNode]);
    std::uint32_t seen = stamp.load(std::memory_order_acquire);
    const float* cached = mSpheres.data() + 4 * std::size_t(inNode);
    if (seen == mEpoch)
    {
        std::memcpy(outSphere, cached, 4 * sizeof(float));
        return;
    }
    std::uint64_t updated = 1;
    if (seen != cClaimed && stamp.compare_exchange_strong(seen, cClaimed, std::memory_order_acquire))
    {
        // This thread owns the node's cache entry until it publishes the stamp; the sibling likewise if its
        // claim succeeds too.
        const std::uint32_t sibling =
            UpdateSibling(inNode, std::uint32_t(mStamp.size()), mProxies->WrappedCount());
        bool pair = false;
        if (sibling != inNode)
        {
            std::atomic_ref<std::uint32_t> siblingStamp(mStamp[sibling]);
            std::uint32_t seenSibling = siblingStamp.load(std::memory_order_relaxed);
            pair = seenSibling != mEpoch && seenSibling != cClaimed &&
                   siblingStamp.compare_exchange_strong(seenSibling, cClaimed, std::memory_order_acquire);
        }
        float* entry = mSpheres.data() + 4 * std::size_t(inNode);
        if (pair)
        {
            const std::uint32_t first = std::min(inNode, sibling);
            mKernel(mProxies->Row(first), 2, mQq.data(), mModes, mQRefNorm,
                    mSpheres.data() + 4 * std::size_t(first));
            std::atomic_ref<std::uint32_t>(mStamp[sibling]).store(mEpoch, std::memory_order_release);
            updated = 2;
        }
        else
            ComputeSphere(inNode, entry);
        std::memcpy(outSphere, entry, 4 * sizeof(float));
        stamp.store(mEpoch, std::memory_order_release);
    }
    else if (seen == mEpoch) // published by another thread since the first look
    {
        std::memcpy(outSphere, cached, 4 * sizeof(float));
        return;
    }
    else // another thread is computing it: a private copy, the same bits
        ComputeSphere(inNode, outSphere);
    std::atomic_ref<std::uint64_t>(mSpheresUpdated).fetch_add(updated, std::memory_order_relaxed);
}

UpdatedSphere TreeState::UpdateSphere(std::uint32_t inNode)
{
    UpdatedSphere sphere;
    float* out = &sphere.center[0];
    if (inNode >= mStamp.size())
    {
        ComputeSphere(inNode, out);
        if (sConcurrent)
            std::atomic_ref<std::uint64_t>(mSpheresUpdated).fetch_add(1, std::memory_order_relaxed);
        else
            ++mSpheresUpdated;
    }
    else if (sConcurrent)
        UpdateConcurrent(inNode, out);
    else if (mStamp[inNode] != mEpoch)
        UpdateSerial(inNode, out);
    else
        std::memcpy(out, mSpheres.data() + 4 * std::size_t(inNode), 4 * sizeof(float));
    if (mCoherenceGrowth > 0.0f)
        sphere.radius = CoherenceRadius(inNode, sphere.radius);
    return sphere;
}

float TreeState::CoherenceRadius(std::uint32_t inNode, float inRadius) const
{
    // R'' = R' + δR‖δq‖₂ (eq. 11); rounded up by one ulp to cover the float multiply-add.
    const float* row = mProxies->Row(inNode);
    const float grown = inRadius + row[NodeRowLayout::TightOffset(mModes) + 1] * mCoherenceGrowth;
    return std::nextafter(grown, std::numeric_limits<float>::infinity());
}

void TreeState::CountUpdates(std::uint64_t inCount)
{
    if (sConcurrent)
        std::atomic_ref<std::uint64_t>(mSpheresUpdated).fetch_add(inCount, std::memory_order_relaxed);
    else
        mSpheresUpdated += inCount;
}

float TreeState::CentreBound() const
{
    const std::span<const float> bounds = mProxies->CentreBounds();
    double bound = bounds[0];
    for (std::uint32_t j = 0; j < mModes; ++j)
        bound += double(bounds[j + 1]) * double(mQq[4 * j + 3]);
    return RoundUpToFloat(bound * (1.0 + 1e-6));
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
