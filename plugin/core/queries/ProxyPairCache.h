#pragma once

#include "SkinBands.h"
#include "SkinListHistory.h"
#include "TraversalFront.h"

#include <array>
#include <bdt/core/base/Math.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace bdt
{

class ContactProxies;

/// Temporal coherence of a tree-vs-tree proxy query by a skin (a Verlet list of proxy pairs): the proxy
/// pairs of two bodies found within the contact reach plus a skin s, and how the bodies stood when they were
/// found, kept for the next steps.
///
/// A later query first bounds how far any proxy pair's gap can have closed since (`CollideProxiesCached`): A's proxies move in A's rest frame only by their modes, Σ_j b_j|Δq_j| (b_j the largest ‖Ū_j‖,
/// `ContactProxies::CentreBounds`), and their radii by at most max(Σ_j e_j|Δq_j|, δ‖Δq‖₂)
/// (`ContactProxies::ProxyRadiusBounds`); B's do the same in B's frame, and B's frame moves in A's (B's centres
/// mapped by N c + u, with N = s_B R_Aᵀ R_B and u = R_Aᵀ(t_B − t_A)): by the motion of a pivot p, plus the
/// turn ‖R − R₀‖₂ times how far B's centres are from p. Only B's proxies that can touch A matter, and those
/// lie in the lens where A's root sphere (widened by the reach and B's largest proxy) meets B's: p and that
/// distance come from a ball around the lens, so bodies resting on each other are limited by their turn times
/// the size of their contact zone, and bodies moving together use up nothing. While that bound, plus the
/// growth of the reach and the float rounding of every term, stays within s, every pair now within the reach
/// was within reach + s then: the query tests the kept pairs exactly as the descent tests its terminal pairs,
/// and its contacts are exactly those of the descent from the roots (the same bits; the order may differ).
/// Otherwise it descends from the roots with the reach widened by s and keeps what it found.
///
/// Each kept pair is also filed under a skin band (`SkinBands.h`: the first quarter of the skin that covered
/// its gap); a bound within k quarters proves that only pairs of bands ≤ k can be within reach now. The pairs
/// are kept ordered by band and the proxies by the first band that needs them, so such a query tests a prefix
/// of the pairs and updates a prefix of the proxies (bodies at rest have a bound near 0: the first band).
///
/// A settled pile reuses most pairs' lists: a pair then costs one sphere update per proxy and one test per
/// pair of the bands its bound needs, instead of a descent from the roots. Bodies moving fast relative to each other descend
/// every step, a little wider than without the cache; after a list that was never reused, the pair descends
/// without the skin (and keeps no list) for 1, 2, 4, 8 and then 16 steps as such lists follow in a row.
///
/// One per pair of bodies, owned by whoever owns the pair (a Bullet collision algorithm); the bodies' roles
/// (A, B) must stay the same between queries (a query finding other states, proxy levels, bounds or scales
/// than the list was made with starts again). Not used with §3.5 temporal coherence (those spheres are
/// computed at a reference q, not at q). 8 bytes a kept pair and 4 a kept proxy, plus 8 bytes a mode.
class ProxyPairCache : public SkinListCache<ProxyPairCache>
{
public:
    /// `inSkin`: the skin s, world units (≥ 0; 0 keeps no list). A list that answers one query pays for itself
    /// here (a pair's descent costs more than a primitive's): asking for two, as `PrimitivePairCache` does, only
    /// makes more descents.
    explicit ProxyPairCache(double inSkin = 0.0) : SkinListCache(inSkin, 1) {}

    /// Forgets the list: the next query descends from the roots.
    void Clear()
    {
        mPairs.clear();
        mNodesA.clear();
        mNodesB.clear();
        mValid = false;
    }
    /// Proxy pairs kept.
    std::size_t Size() const { return mPairs.size(); }
    /// Bytes held.
    std::size_t MemoryBytes() const
    {
        return mPairs.capacity() * sizeof(KeptPair) +
               (mNodesA.capacity() + mNodesB.capacity()) * sizeof(std::uint32_t) +
               (mQA.capacity() + mQB.capacity()) * sizeof(float);
    }

    /// A kept pair: indices into the kept proxies of A and of B.
    struct KeptPair
    {
        std::uint32_t indexA;
        std::uint32_t indexB;
    };

    /// What a list is made for (used by the queries).
    struct Key
    {
        const void* stateA = nullptr;
        const void* stateB = nullptr;
        const ContactProxies* proxiesA = nullptr;
        const ContactProxies* proxiesB = nullptr;
        int boundA = 0;
        int boundB = 0;
        double scaleA = 0.0;
        double scaleB = 0.0;
        bool operator==(const Key&) const = default;
    };

private:
    friend struct ProxyPairCacheAccess;

    /// Keeps `inPairs` (proxy node pairs) as the list, pair i in band `inBands[i]` (1..cSkinBands): the pairs
    /// ordered by band (stably), the distinct proxies of each side ordered by the first band that needs them
    /// (then ascending), and the pairs as indices into them.
    void Keep(std::span<const TraversalFront::NodePair> inPairs, std::span<const std::uint8_t> inBands);

    std::vector<KeptPair> mPairs;          ///< Proxy pairs within reach + skin when the list was made, by band.
    std::vector<std::uint32_t> mNodesA;    ///< Their distinct proxies of A, by first band, then ascending.
    std::vector<std::uint32_t> mNodesB;    ///< Their distinct proxies of B, by first band, then ascending.
    /// Pairs, proxies of A and proxies of B that bands 1..k need: the first [k − 1] of each list.
    std::array<std::uint32_t, cSkinBands> mPairsUpTo{}, mNodesAUpTo{}, mNodesBUpTo{};
    std::vector<float> mQA, mQB;                  ///< Both bodies' q then.
    Mat3d mRotation = Mat3d::Identity();          ///< N₀ = s_B R_Aᵀ R_B then.
    Vec3d mTranslation = Vec3d::Zero();           ///< u₀ = R_Aᵀ(t_B − t_A) then.
    double mReach = 0.0;                          ///< Both inflates then, world units.
    double mRounding = 0.0;                       ///< Float rounding of the spheres then, world units.
    Key mKey;
};

} // namespace bdt
