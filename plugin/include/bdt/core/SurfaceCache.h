#pragma once

#include <bdt/core/ProxyPatches.h>
#include <bdt/core/SurfaceContacts.h>
#include <bdt/core/TreeQueries.h>
#include <cstdint>
#include <span>
#include <vector>

namespace bdt
{

/// One body's deformed vertices for the surface contact model, kept for a step: the vertices of each proxy's
/// patch (`ProxyPatches`) that a contact query touched, p + U q in the rest frame (`Model::DeformedPosition`,
/// double), computed on the patch's first use at the state's current q and reused until q (the state's
/// `Version`) or the patches change. Only the patches in contact are deformed, never the whole mesh.
///
/// Per body, not thread-safe, like the state it follows, except that threads holding a
/// `TreeState::ConcurrentScope` (a parallel narrowphase) may use one cache at once: they deform into storage
/// of their own and leave the cache untouched (the same values, bit for bit). Memory: 4 bytes a node the
/// traversal can visit, plus 24 bytes a vertex of the patches touched in a step.
class SurfaceCache
{
public:
    /// The deformed rest-frame vertices of `inProxy`'s patch (`ProxyPatches::Vertices` order) at `inState`'s
    /// current q. Valid until the next call on this cache (or, under a `ConcurrentScope`, on this thread).
    /// `inPatches` must be built on the state's tree. 6M flops a vertex on a miss; a lookup on a hit.
    std::span<const Vec3d> Vertices(const TreeState& inState, const ProxyPatches& inPatches,
                                    std::uint32_t inProxy);

    /// Patch vertices deformed since the last `ResetCounters` (a patch reused from the cache adds none).
    std::uint64_t VerticesDeformed() const { return mDeformed; }
    void ResetCounters() { mDeformed = 0; }

    /// Bytes held (the slots and the positions' capacity).
    std::size_t MemoryBytes() const;

private:
    void Deform(const TreeState& inState, std::span<const std::uint32_t> inVertices, Vec3d* outPositions);

    const ProxyPatches* mPatches = nullptr;
    std::uint64_t mVersion = 0;
    bool mValid = false;
    std::vector<std::uint32_t> mSlot; // per node: 1 + the offset of its patch in mPositions, 0 if not there
    std::vector<std::uint32_t> mTouched; // the nodes with a slot
    std::vector<Vec3d> mPositions;
    std::uint64_t mDeformed = 0;
};

/// Scratch of `PlacePatch`: one patch's world vertices and normals.
struct PatchScratch
{
    std::vector<Vec3d> vertices;
    std::vector<Vec3d> normals;
};

/// The view of `inProxy`'s patch of `inBody` in the body's placement (each deformed vertex x at
/// `pose.Apply(scale·x)`), its normals, and its bound: the proxy's updated sphere, placed. Vertices from
/// `ioCache`; the placed values go to `ioScratch`, which the view refers to. About 30 flops a vertex and a
/// triangle.
PatchView PlacePatch(const DeformedBody& inBody, const ProxyPatches& inPatches, std::uint32_t inProxy,
                     SurfaceCache& ioCache, double inMargin, double inDepthLimit, PatchScratch& ioScratch);

} // namespace bdt
