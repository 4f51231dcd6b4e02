#pragma once

#include <bdt/core/BDAabbTree.h>
#include <bdt/core/BDTree.h>
#include <bdt/core/MassProperties.h>
#include <bdt/core/ModalProperties.h>
#include <bdt/core/ContactProxies.h>
#include <bdt/core/ProxyPatches.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace bdt
{

class ContactPieces;

/// Everything the bodies of one model share, immutable once made: the BD-Tree (and through it the model),
/// the rest shape's mass properties, the modal integrals, and the proxy levels (§3.4) built so far.
/// Thousands of bodies hold one `std::shared_ptr<const DeformableAsset>`; per-body state lives elsewhere
/// (`TreeState`, `ModalDynamics`).
class DeformableAsset
{
public:
    /// Computes the mass and modal properties of `inTree`'s model (O(N·M + T)). Throws `bdt::Error` if
    /// `inTree` is null or the model has no area.
    static std::shared_ptr<const DeformableAsset> Create(std::shared_ptr<const BDTree> inTree);

    /// The shared tree (never null), and through it the model with triangles in tree order.
    const BDTree& Tree() const { return *mTree; }
    const std::shared_ptr<const BDTree>& TreePtr() const { return mTree; }
    const Model& GetModel() const { return mTree->GetModel(); }
    /// Rest-shape mass properties per unit mass (`ComputeMassProperties` of the model).
    const MassProperties& Mass() const { return mMass; }
    /// Modal integrals about `Mass().centerOfMass` (`ComputeModalProperties`), with the rigid part of each mode's
    /// coupling to the frame taken out (`RemoveRigidCoupling`: s_j = 0, A_j symmetric), which is what the inertial
    /// forcing of the modes uses.
    const ModalProperties& Modal() const { return mModal; }
    /// Per mode j, the axial vector of A_j's antisymmetric part, (A_21 − A_12, A_02 − A_20, A_10 − A_01)
    /// (A_j = `Modal().firstMoment[j]`): ⟨[v]×, A_j⟩_F = v · axial_j, the inertial term of a frame's angular
    /// acceleration v on mode j. M entries, rest-frame axes, model units² per unit q_j (zero to rounding, since
    /// `Modal()`'s A_j are symmetric).
    std::span<const Vec3d> FirstMomentAxial() const { return mFirstMomentAxial; }
    /// The tree-order index of triangle `inInput` of the mesh the tree was built from (the inverse of
    /// `BDTree::TriangleOrder`); cNoIndex outside it. O(1).
    std::uint32_t TreeTriangleOf(std::uint32_t inInput) const
    {
        return inInput < mTreeTriangleOf.size() ? mTreeTriangleOf[inInput] : 0xffffffffu;
    }
    /// Rest radius of the root sphere (model units): the model's size for strain limits and thresholds.
    double BoundingRadius() const { return mBoundingRadius; }

    /// The contact proxies at level `inLevel` (clamped to the tree's depth), built on first request in
    /// O(nodes above the level) and kept: later requests for the same level return the same object.
    /// Thread-safe (a mutex guards the cache).
    std::shared_ptr<const ContactProxies> Proxies(std::uint32_t inLevel) const;

    /// The surface patches of the proxies at level `inLevel` (clamped as `Proxies`), for the surface contact
    /// model: built on first request in O(T log T) and kept, like the proxies. Thread-safe.
    std::shared_ptr<const ProxyPatches> Patches(std::uint32_t inLevel) const;

    /// The tree's BD-AABB box rows (§3.5, `BDAabbTree`), built on first request (O(Σ_nodes |Λ|·M), 32(M + 1)
    /// bytes a node) and kept: for bodies that cull their narrowphase with boxes. Thread-safe.
    std::shared_ptr<const BDAabbTree> Boxes() const;

    /// The surface model's contact pieces of the nodes down to level `inLevel` (clamped as `Proxies`): the nodes
    /// whose triangles are the outside of a box (plugin internal, `ContactPieces`). Built on first request in
    /// O(T · levels) with the box rows and kept. Thread-safe.
    std::shared_ptr<const ContactPieces> Pieces(std::uint32_t inLevel) const;

    /// Bytes held by the tree, the model and the proxy levels built so far (takes the cache's mutex).
    std::size_t MemoryBytes() const;

private:
    DeformableAsset() = default;

    std::shared_ptr<const BDTree> mTree;
    MassProperties mMass;
    ModalProperties mModal;
    std::vector<Vec3d> mFirstMomentAxial; ///< `FirstMomentAxial`.
    std::vector<std::uint32_t> mTreeTriangleOf; ///< `TreeTriangleOf`.
    double mBoundingRadius = 0.0;
    mutable std::mutex mMutex;
    mutable std::vector<std::shared_ptr<const ContactProxies>> mProxies; // index: level
    mutable std::vector<std::shared_ptr<const ProxyPatches>> mPatches; // index: level
    mutable std::vector<std::shared_ptr<const ContactPieces>> mPieces; // index: level
    mutable std::shared_ptr<const BDAabbTree> mBoxes;
};

} // namespace bdt
