#pragma once

#include "SurfaceContacts.h"

#include <bdt/core/contacts/ProxyPatches.h>
#include <bdt/core/queries/TreeQueries.h>
#include <cstdint>
#include <deque>
#include <span>
#include <vector>

namespace bdt
{

/// One proxy's patch placed in world: what a `PatchView` refers to (`PlacePatch`).
struct PlacedPatch
{
    std::vector<Vec3d> vertices; ///< The patch's deformed vertices, placed (`ProxyPatches::Vertices` order).
    std::vector<Vec3d> normals;  ///< Its triangles' unit normals (zero for a degenerate one).
    std::vector<Aabb> faceBoxes; ///< Its own triangles' boxes.
    Aabb box;                    ///< The box of its own triangles' vertices.
    Vec3d axis = Vec3d::Zero();  ///< `PatchView::axis` and its interval.
    double axisLow = 0.0, axisHigh = 0.0;
    Sphere bound; ///< The proxy's updated sphere, placed.
};

/// One body's patches for the surface contact model, kept for a step: each proxy's patch (`ProxyPatches`)
/// that a contact query touched, its vertices deformed (p + U q, `Model::DeformedPosition`, double) and
/// placed where the body is, with its normals and boxes, made on the patch's first use and reused by every
/// pair that touches it until q (the state's `Version`), the placement or the patches change. Only the
/// patches in contact are deformed, never the whole mesh.
///
/// Per body, not thread-safe, like the state it follows, except that threads holding a
/// `TreeState::ConcurrentScope` (a parallel narrowphase) may use one cache at once: they place into storage
/// of their own and leave the cache untouched (the same values, bit for bit). Memory: 4 bytes a node the
/// traversal can visit, plus about 100 bytes a vertex of the patches touched in a step (kept for the next).
class SurfaceCache
{
public:
    /// `inProxy`'s patch of `inBody` (whose state it must follow) placed, from the cache or made now into it;
    /// or, under a `ConcurrentScope`, made into `ioScratch`. Valid until the cache's next step (a new q or
    /// placement), or the thread's next call with the same scratch. About 6M + 20 flops a vertex and 30 a
    /// triangle on a miss; a lookup on a hit.
    /// With `ioStats`, counts the patch as made (`QueryStats::patchesMade`) or reused (`patchesReused`).
    const PlacedPatch& Place(const DeformedBody& inBody, const ProxyPatches& inPatches, std::uint32_t inProxy,
                             PlacedPatch& ioScratch, QueryStats* ioStats = nullptr);
    /// `Place` made into `ioScratch` alone, the cache untouched (the same values, bit for bit): for a second
    /// placement of the same state while views into the cache are held, as when one shape is both sides of a
    /// pair (two collision objects sharing it), whose placement would otherwise overwrite the first side's
    /// patches. Valid until the thread's next call with the same scratch.
    const PlacedPatch& PlaceApart(const DeformedBody& inBody, const ProxyPatches& inPatches, std::uint32_t inProxy,
                                  PlacedPatch& ioScratch, QueryStats* ioStats = nullptr);

    /// Patch vertices deformed since the last `ResetCounters` (a patch reused from the cache adds none).
    std::uint64_t VerticesDeformed() const { return mDeformed; }
    void ResetCounters() { mDeformed = 0; }

    /// Bytes held (the slot table and the placed patches' capacity).
    std::size_t MemoryBytes() const;

private:
    void Make(const DeformedBody& inBody, const ProxyPatches& inPatches, std::uint32_t inProxy,
              PlacedPatch& outPatch);
    /// Whether the cached patches were placed as `inBody` places them, from the same q and patches.
    bool Current(const DeformedBody& inBody, const ProxyPatches& inPatches) const;

    const ProxyPatches* mPatches = nullptr;
    std::uint64_t mVersion = 0;
    Pose mPose;
    double mScale = 0.0;
    bool mValid = false;
    std::vector<std::uint32_t> mSlot;    // per node: 1 + its index in mPlaced, 0 if not there this step
    std::vector<std::uint32_t> mTouched; // the nodes with a slot
    std::deque<PlacedPatch> mPlaced;     // kept across steps for their capacity; never moved (views refer in)
    std::uint64_t mDeformed = 0;
};

/// Where `PlacePatch` puts a placed patch.
enum class EPatchStorage : std::uint8_t
{
    Cache,   ///< `SurfaceCache::Place`: the body's cache, reused by the step's other pairs.
    Scratch, ///< `SurfaceCache::PlaceApart`: the caller's scratch only, the cache untouched.
};

/// The view of `inProxy`'s patch of `inBody` placed (`SurfaceCache::Place`, or `PlaceApart` for
/// `EPatchStorage::Scratch`), with margin `inMargin` and depth limit `inDepthLimit`. The view refers to the
/// cache's (or, under a `ConcurrentScope` or apart, `ioScratch`'s) storage. With `ioStats`, the placement is
/// counted there and so are the feature tests of the view (`PatchView::stats`).
PatchView PlacePatch(const DeformedBody& inBody, const ProxyPatches& inPatches, std::uint32_t inProxy,
                     SurfaceCache& ioCache, double inMargin, double inDepthLimit, PlacedPatch& ioScratch,
                     QueryStats* ioStats = nullptr, EPatchStorage inStorage = EPatchStorage::Cache);

} // namespace bdt
