#pragma once

#include <bdt/core/bounds/BDAabbTree.h>
#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/model/MassProperties.h>
#include <bdt/core/model/ModalProperties.h>
#include <bdt/core/bounds/ContactProxies.h>
#include <bdt/core/contacts/ProxyPatches.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace bdt
{

class ContactPieces;

/// Everything the bodies of one model share, immutable once made: the BD-Tree and model, mass and modal
/// properties, and the proxy levels (§3.4) built so far. Per-body state: `TreeState`, `ModalDynamics`.
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
    /// Modal integrals about `Mass().centerOfMass`, rigid coupling removed (`RemoveRigidCoupling`: s_j = 0, A_j
    /// symmetric), as the modes' inertial forcing uses them.
    const ModalProperties& Modal() const { return mModal; }
    /// Per mode, the axial vector (A_21 − A_12, A_02 − A_20, A_10 − A_01) of A_j = `Modal().firstMoment[j]`, so
    /// ⟨[v]×, A_j⟩_F = v · axial_j. M entries, rest-frame axes, model units²; zero to rounding.
    std::span<const Vec3d> FirstMomentAxial() const { return mFirstMomentAxial; }
    /// The tree-order index of input-mesh triangle `inInput` (`BDTree::TriangleOrder` inverted); cNoIndex
    /// outside it. O(1).
    std::uint32_t TreeTriangleOf(std::uint32_t inInput) const
    {
        return inInput < mTreeTriangleOf.size() ? mTreeTriangleOf[inInput] : 0xffffffffu;
    }
    /// Rest radius of the root sphere (model units): the model's size for strain limits and thresholds.
    double BoundingRadius() const { return mBoundingRadius; }

    /// The contact proxies at level `inLevel` (clamped to the depth), built on first request (O(nodes above
    /// it)) and kept. Thread-safe.
    std::shared_ptr<const ContactProxies> Proxies(std::uint32_t inLevel) const;

    /// The surface patches of the proxies at `inLevel`, built on first request (O(T log T)) and kept.
    /// Thread-safe.
    std::shared_ptr<const ProxyPatches> Patches(std::uint32_t inLevel) const;

    /// The BD-AABB box rows (§3.5), built on first request (32(M + 1) bytes a node) and kept. Thread-safe.
    std::shared_ptr<const BDAabbTree> Boxes() const;

    /// The surface model's contact pieces (plugin internal) down to `inLevel`, built on first request
    /// (O(T · levels), with the box rows) and kept. Thread-safe.
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
