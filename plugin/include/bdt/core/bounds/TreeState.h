#pragma once

#include <bdt/core/base/AlignedAllocator.h>
#include <bdt/core/base/Prefetch.h>
#include <bdt/core/bounds/ContactProxies.h>
#include <bdt/core/bounds/SphereUpdate.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

namespace bdt
{

/// Which conservative radius the sphere update uses.
enum class EBound : std::uint8_t
{
    Paper, ///< R' = R + ΔRᵀ|q| (eq. 7).
    Tight, ///< R' = R + min(ΔRᵀ|q|, δR_tight‖q‖₂): never larger than Paper, still conservative.
};

/// An updated sphere in the body's rest frame: centre (model units) and radius.
struct alignas(16) UpdatedSphere
{
    float center[3];
    float radius;
};

/// Per-body deformation state: q and the lazily updated spheres of the nodes down to the proxy level
/// (`ContactProxies::VisitCount()`, 20 bytes a node). Each `SetQ` starts a step; a node's first `Sphere` in
/// the step computes and caches it and its sibling (§3.4), deeper nodes are never cached. With temporal
/// coherence (§3.5, eq. 11) spheres computed at q_ref grow by δR·‖q − q_ref‖₂ until refreshed.
///
/// One thread at a time per state, except `Sphere` from threads that each hold a `ConcurrentScope`.
class TreeState
{
public:
    /// Largest |q_j| accepted by `SetQ`.
    static constexpr float cMaxAbsQ = 1e12f;

    /// A state with q = 0, using the proxies (and so the traversal depth) of `inProxies`.
    explicit TreeState(std::shared_ptr<const ContactProxies> inProxies);

    const BDTree& Tree() const { return mProxies->Tree(); }
    const ContactProxies& Proxies() const { return *mProxies; }
    const std::shared_ptr<const ContactProxies>& ProxiesPtr() const { return mProxies; }
    std::uint32_t ModeCount() const { return mModes; }

    /// Switches to another proxy level of the same tree (live depth change): O(VisitCount), no rebuild.
    /// Throws `bdt::Error` if `inProxies` belongs to another tree.
    void SetProxies(std::shared_ptr<const ContactProxies> inProxies);

    /// Changes whenever the spheres may (an accepted `SetQ`, new proxies, bound or coherence): for caches.
    std::uint64_t Version() const { return mVersion; }

    /// Sets q for a new step. Returns false, and changes nothing, when `inQ` does not have M entries or has
    /// a non-finite entry or one larger than `cMaxAbsQ` in magnitude.
    [[nodiscard]] bool SetQ(std::span<const float> inQ);
    /// Whether `SetQ` would accept `inQ` for M = `inModes`: M finite entries, none above `cMaxAbsQ` in
    /// magnitude. O(M).
    static bool AcceptsQ(std::span<const float> inQ, std::uint32_t inModes);
    /// The current q (M entries).
    std::span<const float> Q() const { return mQ; }

    void SetBound(EBound inBound);
    EBound Bound() const { return mBound; }

    /// Turns §3.5 temporal coherence on or off from the next `SetQ`; the reference q is refreshed once the
    /// growth would exceed `inRefreshFraction` of the root radius.
    void SetTemporalCoherence(bool inEnabled, float inRefreshFraction = 0.02f);
    bool TemporalCoherence() const { return mCoherence; }

    /// While alive, this thread's `Sphere` calls may run alongside other threads' (each with its own scope) on
    /// the same states, the same bits. Up to three atomic operations a cache miss. Scopes do not nest.
    class ConcurrentScope
    {
    public:
        ConcurrentScope();
        ~ConcurrentScope();
        ConcurrentScope(const ConcurrentScope&) = delete;
        ConcurrentScope& operator=(const ConcurrentScope&) = delete;
    };
    /// Whether this thread holds a `ConcurrentScope` (other per-body caches then leave their storage alone).
    static bool InConcurrentScope() { return sConcurrent; }

    /// Sphere of node `inNode` at the current q, rest frame: computed at its first call in a step, then cached.
    UpdatedSphere Sphere(std::uint32_t inNode)
    {
        // An acquire load (a plain load on x86): the sphere a concurrent thread published with its stamp is
        // complete when the stamp is seen.
        if (inNode < mStamp.size() &&
            std::atomic_ref<std::uint32_t>(mStamp[inNode]).load(std::memory_order_acquire) == mEpoch &&
            mCoherenceGrowth == 0.0f)
        {
            UpdatedSphere sphere;
            std::memcpy(&sphere, mSpheres.data() + 4 * std::size_t(inNode), sizeof(sphere));
            return sphere;
        }
        return UpdateSphere(inNode);
    }

    /// The spheres of siblings `inFirst` and `inFirst + 1`, as two `Sphere` calls would give them.
    void SiblingSpheres(std::uint32_t inFirst, UpdatedSphere (&outSpheres)[2])
    {
        if (inFirst + 1 < mStamp.size() && mCoherenceGrowth == 0.0f &&
            std::atomic_ref<std::uint32_t>(mStamp[inFirst]).load(std::memory_order_acquire) == mEpoch &&
            std::atomic_ref<std::uint32_t>(mStamp[inFirst + 1]).load(std::memory_order_acquire) == mEpoch)
        {
            std::memcpy(outSpheres, mSpheres.data() + 4 * std::size_t(inFirst), sizeof(outSpheres));
            return;
        }
        outSpheres[0] = UpdateSphere(inFirst);
        outSpheres[1] = Sphere(inFirst + 1);
    }

    /// Whether the spheres are those of q = 0: `ComputeSphereNow` then copies the rest row (no update to
    /// count).
    bool RestShape() const { return mQRefNorm == 0.0f; }

    /// `Sphere(inNode)` bit for bit, computed now without the cache; the caller counts it (`CountUpdates`).
    UpdatedSphere ComputeSphereNow(std::uint32_t inNode) const
    {
        UpdatedSphere sphere;
        if (mQRefNorm == 0.0f) // q = 0: the rest sphere, what the update would give bit for bit
            std::memcpy(&sphere, mProxies->Row(inNode), sizeof(sphere));
        else
            mKernel(mProxies->Row(inNode), 1, mQq.data(), mModes, mQRefNorm, &sphere.center[0]);
        if (mCoherenceGrowth > 0.0f)
            sphere.radius = CoherenceRadius(inNode, sphere.radius);
        return sphere;
    }

    /// `SiblingSpheres` bit for bit, computed now without the cache; returns the updates to count (2, or 0 at
    /// q = 0). For traversals over many bodies, where the cache costs more than 2 × 8M flops.
    std::uint32_t ComputeSiblingSpheres(std::uint32_t inFirst, UpdatedSphere (&outSpheres)[2]) const
    {
        if (mQRefNorm == 0.0f && mCoherenceGrowth == 0.0f) // q = 0: the rest spheres, as the update gives them
        {
            const std::uint32_t stride = mProxies->Tree().RowStride();
            std::memcpy(&outSpheres[0], mProxies->Row(inFirst), sizeof(UpdatedSphere));
            std::memcpy(&outSpheres[1], mProxies->Row(inFirst) + stride, sizeof(UpdatedSphere));
            return 0;
        }
        mKernel(mProxies->Row(inFirst), 2, mQq.data(), mModes, mQRefNorm, &outSpheres[0].center[0]);
        if (mCoherenceGrowth > 0.0f)
            for (std::uint32_t k = 0; k < 2; ++k)
                outSpheres[k].radius = CoherenceRadius(inFirst + k, outSpheres[k].radius);
        return 2;
    }

    /// An upper bound on ‖c'‖ for every node's updated centre c' (rest frame, model units), from
    /// `ContactProxies::CentreBounds` and the q the spheres are computed at. O(M).
    float CentreBound() const;

    /// Updates every node in [inBegin, inEnd) now (a batch); they must be below `Proxies().VisitCount()`.
    void UpdateRange(std::uint32_t inBegin, std::uint32_t inEnd);

    /// Adds `inCount` to `SpheresUpdated` (updates computed without the cache); threads holding a
    /// `ConcurrentScope` may call it on one state at once.
    void CountUpdates(std::uint64_t inCount);

    /// Prefetches what a query reads first (q, the root's sphere and stamp): a hint for loops over bodies.
    void Prefetch() const
    {
        PrefetchBytes(mQq.data(), mQq.size() * sizeof(float));
        PrefetchBytes(mSpheres.data(), 64);
        PrefetchBytes(mStamp.data(), 64);
    }

    /// Number of sphere updates computed since the last `ResetCounters` (8M flops each).
    std::uint64_t SpheresUpdated() const { return mSpheresUpdated; }
    void ResetCounters() { mSpheresUpdated = 0; }

    /// Bytes owned by this state (q, cache and stamps), not counting the shared tree.
    std::size_t MemoryBytes() const;

private:
    float CoherenceRadius(std::uint32_t inNode, float inRadius) const; // R'' of eq. 11
    UpdatedSphere UpdateSphere(std::uint32_t inNode); // `Sphere` when the cache misses or coherence grows it
    void UpdateSerial(std::uint32_t inNode, float* outSphere);   // serial miss: compute, cache, stamp
    void UpdateConcurrent(std::uint32_t inNode, float* outSphere); // miss under a `ConcurrentScope`
    /// The stamp of a node claimed by a thread computing its sphere (never an epoch).
    static constexpr std::uint32_t cClaimed = 0xffffffffu;
    static thread_local bool sConcurrent;
    void ComputeSphere(std::uint32_t inNode, float* outSphere) const;
    void NewEpoch();
    void RebuildQq(std::span<const float> inQ);

    std::shared_ptr<const ContactProxies> mProxies;
    std::uint32_t mModes = 0;
    SphereBatchKernel mKernel = nullptr; ///< Chosen by bound and M (`SelectSphereKernel`).
    EBound mBound = EBound::Tight;
    bool mCoherence = false;
    float mRefreshFraction = 0.02f;

    std::vector<float> mQ;            ///< Current q.
    std::vector<float> mQRef;         ///< q at which cached spheres were computed.
    AlignedVector<float> mQq;         ///< (q_j, q_j, q_j, |q_j|) of mQRef, the update kernel's input.
    float mQRefNorm = 0.0f;           ///< ‖q_ref‖₂ for the tight bound.
    float mCoherenceGrowth = 0.0f;    ///< ‖q − q_ref‖₂ (0 unless temporal coherence is on).

    AlignedVector<float> mSpheres;    ///< 4 floats a cached node.
    std::vector<std::uint32_t> mStamp; ///< Epoch in which the cached sphere was computed.
    std::uint32_t mEpoch = 1;
    std::uint64_t mVersion = 0;       ///< `Version`.
    std::uint64_t mSpheresUpdated = 0; ///< Spheres computed; one that two threads raced on counts twice.
};

} // namespace bdt
