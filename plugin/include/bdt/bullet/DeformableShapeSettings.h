#pragma once

#include <bdt/core/dynamics/ModalDynamics.h>
#include <bdt/core/bounds/TreeState.h>

#include <cstdint>

namespace bdt
{

/// How a deformable body's contacts are made once its BD-Tree has culled down to the proxies of level L.
enum class EContactModel : std::uint8_t
{
    /// On the deformed triangles under each overlapping proxy: the body rests on its own surface (within the
    /// margins). Deforms only those triangles' vertices, once a step. The default.
    Surface,
    /// On the proxy spheres themselves (§3.4), moved by the deformation at their rest radius. Cheapest; a body
    /// on a flat face floats and rocks by up to a proxy's radius.
    Proxies,
};

/// The least mass, kg, of a deformable body (`DeformableShapeSettings::mass`): the contacts' modal compliance
/// grows as 1/mass and must stay a finite float in Bullet's solver.
inline constexpr double cMinMass = 1e-6;

/// Per-body settings of a `DeformableShape`; every field can change live (`SetSettings`).
/// Tuning: docs/TUNING.md#deformableshapesettings.
struct DeformableShapeSettings
{
    /// Traversal depth L (§3.4): the spheres cull down to this level's proxies, where contacts are made.
    std::uint32_t proxyLevel = 10;
    EContactModel contactModel = EContactModel::Surface; ///< Where contacts are made (`EContactModel`).
    /// Body mass in kg, for the modal masses (give the rigid body the same): at least `cMinMass`.
    double mass = 1.0;
    ModalSettings modal;           ///< Vibration: stiffness and damping scales, strain limit.
    EBound bound = EBound::Tight;  ///< Sphere radius bound used by the updates.
    bool temporalCoherence = false; ///< §3.5 temporal coherence of sphere updates.
    /// Contact regions: proxies sharing an ancestor this many levels above L share one persistent manifold
    /// (at most 4 points). ≥ 0; 0 gives one manifold per proxy.
    std::uint32_t regionDepth = 3;
    /// Cap on a pair's region manifolds, ≥ 1; past it, the kept regions are spread over the contact area and
    /// the others' contacts join the nearest. Each costs a manifold of ≤ 4 solver points.
    std::uint32_t maxManifoldsPerPair = 16;
    /// Deformable pairs resume their proxy descent from last step's front (`TraversalFront`) when both bodies
    /// ask; the same contacts, bit for bit. 12 bytes a front pair plus 4 a mode; off by default.
    bool frontTracking = false;
    /// Pair cache skin (`ProxyPairCache`), a fraction of the body's rest bounding radius, ≥ 0 and finite; 0
    /// turns it off. The same contacts, bit for bit. Sensible values 0.01 to 0.04; a few hundred bytes a pair.
    double pairCacheSkin = 0.02;
    /// Most sphere tests per deformable pair and step (Mendoza & O'Sullivan 2006), 0 for no limit; the
    /// smaller non-zero budget of the two applies, before every other culling option. Past it, coarser
    /// overlapping spheres become the contacts (still deterministic).
    std::uint32_t traversalBudget = 0;
    /// Cull deformable pairs with BD-AABB boxes (§3.5) beside the spheres when both bodies ask; the same
    /// contacts, bit for bit. Builds 32(M + 1) bytes a node per asset; a box test costs ~10 sphere tests.
    bool boxCulling = false;
    /// Surface model: how far (m, world) the surface may bend from a contact piece's box for the piece to
    /// collide as that box (~20 times cheaper than its triangles). ≥ 0 and finite; 0 turns pieces off.
    double pieceTolerance = 0.002;
};

} // namespace bdt
