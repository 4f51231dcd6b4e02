#pragma once

// An affine bound on how a contact piece (`ContactPieces.h`) deforms: per node and mode, the affine map that
// best fits the mode's displacement over the node's vertices and how far any vertex stands off it (Steinemann,
// Otaduy & Gross 2008, the section on bounding vertices under affine transformations: points under an affine
// map stay inside the mapped box). A bending body's piece then moves as a rotated, stretched box whose growth
// is the small part of the deformation no affine map follows, not the whole spread of the node's
// displacements (the BD-AABB growth ΔBᵀ|q| of the BD-Tree paper, §3.5).

#include <bdt/core/bounds/BDAabbTree.h>
#include <bdt/core/geometry/Contact.h>
#include <bdt/core/base/Math.h>
#include <cstdint>
#include <span>
#include <vector>

namespace bdt
{

struct ContactPiece;

/// A piece's box at some q, rest frame (model units): every deformed vertex of its node lies within `growth`
/// of where the box puts it, along any direction.
struct PieceFrame
{
    Vec3d centre = Vec3d::Zero();      ///< The box centre.
    Mat3d axes = Mat3d::Identity();    ///< Columns: the box's axes (orthonormal, det +1).
    Vec3d stretch = Vec3d::Ones();     ///< How much the box is stretched along each of `axes` (> 0).
    Vec3d halfExtents = Vec3d::Zero(); ///< Along `axes`, extrusion included: the rest half extents stretched.
    double growth = 0.0;               ///< How far a deformed vertex may stand off the box's image of it.
    /// Made by the affine bound: the box turned and stretched with its node, so its faces' planes hold the
    /// surface only within it, not past its cut faces as a box that only moved does.
    bool turned = false;
    /// The rest point that the box puts at `inPoint` (rest frame, at q), for a box whose rest centre is
    /// `inRestCentre`: the inverse of the box's map p0 + u ↦ centre + axes · (stretch ⊙ u). Exactly `inPoint`
    /// for the identity frame.
    Vec3d RestPoint(const Vec3d& inPoint, const Vec3d& inRestCentre) const
    {
        const Vec3d local = inPoint - centre;
        const Vec3d unstretched = (axes.transpose() * local).cwiseQuotient(stretch);
        return inPoint + (inRestCentre - centre) + (unstretched - local);
    }
};

/// Per piece node and mode j, the affine fit u_j(p) ≈ A_j (p − c) + t_j of the mode's displacement over the
/// node's vertices about its BD-AABB rest centre c (least squares), and the bound r_j on the residual, summed
/// over the three axes (max over the vertices, with the stored floats). At q the node's vertices then stand
/// within Σ_j |q_j| r_j of the map F = I + Σ_j q_j A_j, t = Σ_j q_j t_j. Built once per asset from the rest
/// mesh and the basis, in O(Σ_nodes vertices · M); immutable, shared by every body. 13M floats a piece.
class AffinePieceBounds
{
public:
    AffinePieceBounds() = default;
    /// The fits of the nodes [0, `inPieces.size()`) of `inBoxes`'s tree that are pieces (`ContactPiece::IsPiece`).
    /// Keeps a pointer to `inBoxes` (their rest centres and half extents), which must outlive it:
    /// `ContactPieces` holds both.
    AffinePieceBounds(const BDAabbTree& inBoxes, std::span<const ContactPiece> inPieces);

    /// Whether node `inNode` has a fit.
    bool Has(std::uint32_t inNode) const { return inNode < mSlot.size() && mSlot[inNode] != cNoIndex; }

    /// Piece `inPiece` of node `inNode` (`Has`) at `inQ` (M entries): its rest box mapped by F, turned onto the
    /// axes a Gram-Schmidt of F's columns gives (the node's longest side first, so a bending flat patch turns
    /// with its plane), stretched by the diagonal of F on those axes, and moved by t. The growth is the
    /// residual bound plus what F's shear on those axes moves the node's vertices off the box (its off-diagonal
    /// times the node's rest half extents). False where F folds a side below half its length or q is not
    /// finite: no frame. About 20M + 150 flops.
    bool Frame(std::uint32_t inNode, const ContactPiece& inPiece, std::span<const float> inQ,
               PieceFrame& outFrame) const;

    std::size_t MemoryBytes() const
    {
        return mSlot.capacity() * sizeof(std::uint32_t) + mFits.capacity() * sizeof(float);
    }

private:
    /// The map at `inQ`: F = I + Σ q_j A_j, t = Σ q_j t_j, and the residual bound Σ |q_j| r_j.
    void Map(std::uint32_t inNode, std::span<const float> inQ, Mat3d& outMap, Vec3d& outMove,
             double& outResidual) const;

    const BDAabbTree* mBoxes = nullptr;
    std::uint32_t mModes = 0;
    std::vector<std::uint32_t> mSlot; // per node: its fit's index, or cNoIndex
    std::vector<float> mFits;         // per fit, per mode: A_j row-major (9), t_j (3), r_j (1)
};

} // namespace bdt
