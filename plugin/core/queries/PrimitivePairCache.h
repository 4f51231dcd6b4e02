#pragma once

#include "SkinBands.h"
#include "SkinListHistory.h"

#include <array>
#include <bdt/core/base/Math.h>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bdt
{

class ContactProxies;

/// Temporal coherence of a body's proxy query against an analytic primitive (a ground plane, a box, a sphere
/// or a capsule, static or moving) by a skin: the proxies found within the contact reach plus a skin s of the
/// primitive, and where the body stood relative to the primitive when they were found, kept for the next
/// steps. The counterpart of `ProxyPairCache` for a body and rigid geometry: a body resting on the ground
/// otherwise descends its tree to the ground every step (half the sphere updates of a settled pile of chairs
/// on a plane), and one carrying resting balls or crates descends to each of them.
///
/// The primitive's tests depend on a point only through its place in the primitive's own frame P (a sphere's
/// centre, a box's pose, a capsule's first end, a change of its axis being added to the bound; a plane's is
/// the world's), so the body is tracked in that frame: a proxy centre c (rest frame) sits at s M c + u, with
/// M = R_Pᵀ R_A and u = R_Pᵀ(t_A − t_P). A later query bounds how far any proxy's sphere can have come
/// closer to the primitive since: its centre moves in the body's rest frame by its modes and its radius
/// grows (`ContactProxies::CentreBounds`, `ContactProxies::ProxyRadiusBounds`: the same drift as
/// `ProxyPairCache`'s), and the relative frame moves the centre by s(M − M₀)c + s M₀Δc + (u − u₀), at most
/// s‖M − M₀‖₂‖c‖ + s‖M₀‖₂‖Δc‖ + ‖u − u₀‖. While that bound, plus the growth of the reach and the float
/// rounding of the spheres then and now, stays within s, every proxy now within reach of the primitive was
/// within reach + s then (the primitive's tests are distances, which change by no more than the sphere
/// moves): the query tests the kept proxies exactly as the descent tests its terminal nodes, against the
/// primitive where it is now, in the descent's order, and its contacts are exactly those of the descent from
/// the root (the same bits, the same order). Otherwise it descends with the reach widened by s and keeps what
/// it found. The primitive's shape must be the same, bit for bit (the key holds a sphere's radius, a box's
/// half extents, a capsule's radius, a plane's normal and offset: a plane that moves starts again), as must
/// the body's tree state, proxy level, bound and scale.
///
/// Each kept proxy is also filed under a skin band (`SkinBands.h`: the first quarter of the skin that covered
/// its gap); a bound within k quarters proves that only proxies of bands ≤ k can be within reach now, so such
/// a query updates and tests only those (bodies at rest: the first band), in the descent's order still.
///
/// A body that moves faster than the skin allows, relative to the primitive (a thrown ball), would pay the
/// wider descent every step for nothing, and one that uses up the skin in two steps pays it for one list
/// query: after a list that answered fewer than `cReusesThatPay` queries it descends without the skin
/// (keeping no list) for 1, 2, 4, 8 and then 16 queries as such lists follow in a row (`SkinListHistory`,
/// shared with `ProxyPairCache`).
///
/// One per pair of a body and a primitive, owned by whoever owns the pair (a Bullet collision algorithm).
/// Not used with §3.5 temporal coherence (its spheres are computed at a reference q). 5 bytes a kept proxy
/// plus 4 bytes a mode.
class PrimitivePairCache : public SkinListCache<PrimitivePairCache>
{
public:
    /// `inSkin`: the skin s, world units (≥ 0; 0 keeps no list).
    explicit PrimitivePairCache(double inSkin = 0.0) : SkinListCache(inSkin, cReusesThatPay) {}

    /// Queries a list must answer to pay for the descent that made it (`SkinListHistory`). One does not: a
    /// list made, used once and dropped costs a widened descent and a list query where plain descents cost
    /// two of theirs: where a body rings by about the skin every step (its lists answer one query each), two
    /// pay and one does not; elsewhere the choice makes no difference (`bdt-bench scaling` measures it).
    static constexpr std::uint32_t cReusesThatPay = 2;

    /// Forgets the list: the next query descends from the root.
    void Clear()
    {
        mNodes.clear();
        mBands.clear();
        mValid = false;
    }
    /// Proxies kept.
    std::size_t Size() const { return mNodes.size(); }
    /// Bytes held.
    std::size_t MemoryBytes() const
    {
        return mNodes.capacity() * sizeof(std::uint32_t) + mBands.capacity() + mQ.capacity() * sizeof(float);
    }

    /// What a list is made for (used by the queries): the body's state, proxies, bound and scale, and the
    /// primitive's kind and shape (not where it is: the list follows the body relative to it).
    struct Key
    {
        const void* state = nullptr;
        const ContactProxies* proxies = nullptr;
        int bound = 0;
        double scale = 0.0;
        int kind = -1;
        std::array<double, 15> primitive{};
        bool operator==(const Key&) const = default;
    };

private:
    friend struct PrimitivePairCacheAccess;

    std::vector<std::uint32_t> mNodes; ///< Proxies within reach + skin when the list was made, descent order.
    std::vector<std::uint8_t> mBands;  ///< Their skin bands (1..cSkinBands).
    std::vector<float> mQ;             ///< The body's q then.
    Mat3d mRotation =
        Mat3d::Identity(); ///< M₀ = R_Pᵀ R_A then: the body's rotation in the primitive's frame.
    Vec3d mTranslation = Vec3d::Zero();  ///< u₀ = R_Pᵀ(t_A − t_P) then, world units.
    double mMapNorm = 1.0;               ///< max(1, a bound on ‖M₀‖₂).
    std::array<double, 15> mPlacement{}; ///< The primitive's placement in its frame then (a capsule's axis).
    double mReach = 0.0;                 ///< The body's inflate then, world units.
    double mRounding = 0.0;              ///< Float rounding of the spheres then, world units.
    Key mKey;
};

} // namespace bdt
