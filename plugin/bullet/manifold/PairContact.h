#pragma once

// A contact of a deformable body with the other side of a pair, as the narrowphase makes it and before it is
// written into Bullet's manifolds (`ContactGeneration.h` makes them, `ContactRegions.h` reduces them). Private
// to plugin/bullet.

#include <bdt/bullet/ContactFeature.h>
#include <bdt/core/base/Math.h>
#include <array>
#include <cstdint>

namespace bdt
{

/// One side of a surface-model piece contact whose surface point is not named yet (`PieceNamer`): the piece, the
/// point of its rest box that the box put there (body rest frame, model units), and how the box moved its rest
/// box (rest frame): a rest point p went to p + motion + turn (p − rest). Naming it finds the triangle under it,
/// which costs a search; the narrowphase names only the points its reduction keeps.
struct UnnamedPoint
{
    std::uint32_t piece = cNoIndex; ///< cNoIndex: nothing to name (B not deformable, or named).
    Vec3d rest = Vec3d::Zero();
    Vec3d motion = Vec3d::Zero();
    Mat3d turn = Mat3d::Zero(); ///< Zero for a box that only moved; its turn and stretch less I for a turned one.
};

/// A contact of deformable A with B, world frame, Bullet's conventions: made on A's deformed surface (the
/// surface model) or on one of its proxy spheres (the proxies model).
struct PairContact
{
    Vec3d pointOnB = Vec3d::Zero(); ///< On B's collision surface (its margin included).
    Vec3d normal = Vec3d::UnitY();  ///< Unit, from B to A.
    /// Signed distance from B's surface to A's, each grown by its margin: A's deformed triangles (surface
    /// model), or its proxy sphere, its centre moved by the deformation at its rest radius (proxies model,
    /// see `GenerateContacts`; for two deformables B's likewise). Negative when penetrating. A's point is
    /// `pointOnB + normal * distance`.
    double distance = 0.0;
    /// World units: how the modes will change the distance over the coming step if they keep last step's
    /// force (`PredictContacts`; the solver's gap is made of it by `SetSolverGap`). 0 for rigid surfaces.
    double stepMotion = 0.0;
    /// Extra give of the contact along the normal, world units per N·s of normal impulse: the modes' response
    /// to the solve's impulse over the step (`PredictContacts`); 0 for rigid surfaces.
    double compliance = 0.0;
    /// The solver's Baumgarte factor the prediction was made for (`StepPrediction::contactErp`); 0 without a
    /// prediction.
    double predictionErp = 0.0;
    ContactFeature feature0; ///< Where it acts on A: its proxy, and its surface point in the surface model.
    ContactFeature feature1; ///< The same on B for a deformable B; no node otherwise.
    int index1 =
        -1; ///< B's triangle index for a concave B (as Bullet's triangle callbacks give it), else -1.
    int partId1 = -1; ///< B's part id for a concave B, else -1.
    /// A fallback: a proxy contact standing in for patches that cross, withdrawn if the pair makes a surface
    /// contact elsewhere. Only while `GenerateContacts` runs; false in what it returns.
    bool withdrawable = false;
    /// A piece contact left unnamed (`EPieceNames::Later`): A's and B's points to name. Until named, `feature0`
    /// and `feature1` hold only the pieces' nodes (A's keys its region), and `distance` is the boxes' distance
    /// less `unnamedSlack`, the pieces' growth, so never above the surfaces' (`PieceSide::Growth`); naming
    /// makes both exact.
    std::array<UnnamedPoint, 2> unnamed;
    double unnamedSlack = 0.0; ///< World units, ≥ 0.

    bool Unnamed() const { return unnamed[0].piece != cNoIndex; }
};

} // namespace bdt
